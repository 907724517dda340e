package comment

import (
	"errors"
	"fmt"
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
// httpClient may be nil for a client with a 30-second timeout per request.
func NewClient(token, apiURL string, httpClient *http.Client) (*github.Client, error) {
	token = strings.TrimSpace(token)
	if token == "" {
		return nil, ErrNoToken
	}
	if strings.ContainsAny(token, " \t\r\n") {
		// Never echo the value: it is a secret even when malformed.
		return nil, errors.New("GitHub token contains white space or a line break; check the github-token input")
	}
	if httpClient == nil {
		httpClient = &http.Client{Timeout: 30 * time.Second}
	}
	c := github.NewClient(httpClient).WithAuthToken(token)
	c.UserAgent = userAgent

	apiURL = strings.TrimSpace(apiURL)
	if apiURL == "" || strings.TrimRight(apiURL, "/") == DefaultAPIURL {
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
	base.Path = strings.TrimRight(base.Path, "/") + "/"
	base.RawPath = ""
	upload := *base
	if p, ok := strings.CutSuffix(base.Path, "/api/v3/"); ok {
		upload.Path = p + "/api/uploads/"
	}
	c.BaseURL, c.UploadURL = base, &upload
	return c, nil
}
