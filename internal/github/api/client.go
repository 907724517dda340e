// Package api makes the go-github client every GitHub call of agentgate goes through: the
// token sent only to the API's own origin, GitHub Enterprise Server's API root taken as given.
package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"
)

// DefaultAPIURL is GitHub.com's REST API root, GITHUB_API_URL's value there.
const DefaultAPIURL = "https://api.github.com"

// userAgent names agentgate to GitHub, as its API terms ask.
const userAgent = "agentgate (+https://github.com/agentgate/agentgate)"

// ErrNoToken is returned by NewClient for an empty token.
var ErrNoToken = errors.New("no GitHub token: set the github-token input (default ${{ github.token }})")

// NewClient returns a go-github client that authenticates with token
// (sent as "Authorization: Bearer", never logged) against apiURL, the value
// of GITHUB_API_URL: "https://api.github.com" on github.com,
// "https://HOST/api/v3" on GitHub Enterprise Server; "" means github.com.
//
// apiURL is taken as the exact API root. go-github's WithEnterpriseURLs is
// not used because it appends "api/v3/" to any host that does not start with
// "api.", which would break an API served at a host's root (a proxy, or the
// test emulator); GITHUB_API_URL already carries the /api/v3 suffix on GHES.
// The upload root is derived the GHES way (/api/v3 → /api/uploads) although
// agentgate uploads nothing.
//
// The token goes only to the API's own origin (scheme, host and port of
// apiURL): it is added by a RoundTripper to each request for that origin, and
// never to one for another host, such as where a redirect leads (artifact
// downloads answer 302 to blob storage). go-github's WithAuthToken adds it to
// every request, redirects included, so it is not used. The client is meant
// for every REST call agentgate makes, artifact downloads included: its
// Client() fetches a redirect's Location without the token.
//
// httpClient may be nil for a client with a 30-second timeout per request;
// it is copied, not changed.
func NewClient(token, apiURL string, httpClient *http.Client) (*github.Client, error) {
	token = strings.TrimSpace(token)
	if token == "" {
		return nil, ErrNoToken
	}
	if strings.ContainsAny(token, " \t\r\n") {
		// Never echo the value: it is a secret even when malformed.
		return nil, errors.New("GitHub token contains white space or a line break; check the github-token input")
	}
	hc := &http.Client{Timeout: 30 * time.Second}
	if httpClient != nil {
		cp := *httpClient
		hc = &cp
	}
	apiURL = strings.TrimSpace(apiURL)
	if apiURL == "" || strings.TrimRight(apiURL, "/") == DefaultAPIURL {
		hc.Transport = &authTransport{base: hc.Transport, token: token, origin: "https://api.github.com:443"}
		c := github.NewClient(hc)
		c.UserAgent = userAgent
		return c, nil
	}
	base, err := url.Parse(apiURL)
	if err != nil {
		return nil, fmt.Errorf("GITHUB_API_URL %q: %w", apiURL, err)
	}
	if (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, fmt.Errorf("GITHUB_API_URL %q: want an http(s) URL such as https://github.example.com/api/v3", apiURL)
	}
	if base.User != nil || base.RawQuery != "" || base.Fragment != "" {
		return nil, fmt.Errorf("GITHUB_API_URL %q: must not carry credentials, a query or a fragment", base.Redacted())
	}
	hc.Transport = &authTransport{base: hc.Transport, token: token, origin: origin(base)}
	c := github.NewClient(hc)
	c.UserAgent = userAgent
	base.Path = strings.TrimRight(base.Path, "/") + "/"
	base.RawPath = ""
	upload := *base
	if p, ok := strings.CutSuffix(base.Path, "/api/v3/"); ok {
		upload.Path = p + "/api/uploads/"
	}
	c.BaseURL, c.UploadURL = base, &upload
	return c, nil
}

// MaxResponseBytes bounds every answer the client reads (a variable so that tests can lower
// it): a page of 100 comments of GitHub's longest (65,536 characters) is under 30 MiB, and a
// 1.5 GB answer to GET /user read whole ended the step in "fatal error: out of memory" with
// no summary, outputs or comment (docs/security.md, "API answers"). Artifact zips come from
// the storage host through another client, bounded by artifact.MaxZipBytes.
var MaxResponseBytes int64 = 64 << 20

// ErrTooLarge is what reading an answer longer than MaxResponseBytes gives.
var ErrTooLarge = errors.New("the most agentgate reads of one API answer")

// TooLargeError is one answer over the bound: the request's method and path (no query: it may
// be signed), and the bound. It unwraps to ErrTooLarge.
type TooLargeError struct {
	Method, Path string
	Limit        int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s %s: the answer is longer than %d MiB, %v", e.Method, e.Path, e.Limit>>20, ErrTooLarge)
}

func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// tooLarge is the error of one answer of req over the bound limit.
func tooLarge(req *http.Request, limit int64) error {
	return &TooLargeError{Method: req.Method, Path: req.URL.Path, Limit: limit}
}

// boundedBody reads an answer's body up to a limit, and fails with tooLarge past it, so
// that go-github's decoder stops there. An answer whose Content-Length says it is too long
// is not read at all.
type boundedBody struct {
	body io.ReadCloser
	left int64 // bytes that may still be read
	err  error // tooLarge, for when left is spent and more comes
	hit  bool  // err was returned: the answer was over the bound
	// refuse: the answer said it was over the bound (Content-Length): no byte is read
	refuse bool
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.refuse {
		b.hit = true
		return 0, b.err
	}
	if b.left <= 0 {
		var one [1]byte
		if n, err := b.body.Read(one[:]); n == 0 {
			return 0, err // the end, exactly at the limit
		}
		b.hit = true
		return 0, b.err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.body.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *boundedBody) Close() error { return b.body.Close() }

// bound puts resp's body behind boundedBody; a body whose Content-Length is over the limit is
// closed unread, and reading gives the error at once.
func bound(req *http.Request, resp *http.Response) {
	limit := MaxResponseBytes
	b := &boundedBody{body: resp.Body, left: limit, err: tooLarge(req, limit)}
	if resp.ContentLength > limit {
		resp.Body.Close()
		b.body, b.refuse = http.NoBody, true
	}
	resp.Body = b
	resp.Request = req.WithContext(context.WithValue(req.Context(), boundKey{}, b))
}

// authTransport adds "Authorization: Bearer <token>" to requests for one
// origin only, so the token never follows a redirect to another host, and
// reads every answer within MaxResponseBytes.
type authTransport struct {
	base   http.RoundTripper // nil means http.DefaultTransport
	token  string
	origin string // "scheme://host:port", lower case, port explicit
}

// RoundTrip sends req, with the token when it is for the API's origin. It
// clones the request rather than changing it, as RoundTrippers must; a
// request for another host loses any Authorization header it carried.
func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	r := req.Clone(req.Context())
	if origin(req.URL) == t.origin {
		r.Header.Set("Authorization", "Bearer "+t.token)
	} else {
		r.Header.Del("Authorization")
	}
	resp, err := base.RoundTrip(r)
	if err == nil && resp.Body != nil {
		bound(r, resp)
	}
	return resp, err
}

// origin is a URL's scheme, host and port, lower case with the default port
// written out, so https://API.github.com and https://api.github.com:443 are
// one origin.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// overBound is the error of an answer whose body was cut at the bound, or nil. The decoder
// that read the body may have kept only the error's text (encoding/json v2 turns a read error
// into a *json.SyntaxError, "jsontext: read error: …"), and http.Client wraps the body in its
// own, so the body is found through the answer's request, where bound left it.
func overBound(resp *http.Response) error {
	if resp == nil || resp.Request == nil {
		return nil
	}
	if b, ok := resp.Request.Context().Value(boundKey{}).(*boundedBody); ok && b.hit {
		return b.err
	}
	return nil
}

// boundKey is the context key under which bound leaves an answer's boundedBody.
type boundKey struct{}
