// Package api makes the go-github client every GitHub call of agentgate goes through: the
// token sent only to the API's own origin, GitHub Enterprise Server's API root taken as given.
package api

import (
	"errors"
	"fmt"
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

// authTransport adds "Authorization: Bearer <token>" to requests for one
// origin only, so the token never follows a redirect to another host.
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
	return base.RoundTrip(r)
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
