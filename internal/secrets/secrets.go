// Package secrets finds credentials in text by their shape, and the encoded forms of a known
// secret, so that agentgate can replace them before any output quotes them (docs/security.md,
// "Credential shapes").
//
// The shapes follow gitleaks' default rules (config/gitleaks.toml of
// github.com/gitleaks/gitleaks at commit b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b), each rule
// citing the ids it follows. gitleaks itself is not a dependency: its Go module brings some
// forty others (cobra, viper, archive readers) for what is here a table of patterns. Where a
// gitleaks rule fixes a length or a checksum marker to avoid false alarms in a code scan, the
// rule here takes any length from a floor: a false match costs a "***" in evidence, a missed
// one a credential in a public comment.
//
// Every pattern is an RE2 expression (linear in the text) behind a literal keyword, so text
// that holds no keyword costs one substring search per keyword; private-key blocks are found
// by a linear scan rather than a lazy expression, which is quadratic over many BEGIN lines
// without an END.
package secrets

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
	"unsafe"
)

// Rule is one credential shape.
type Rule struct {
	// ID names the rule: the gitleaks rule ids it follows, or "agentgate:" and a name for
	// one gitleaks' default rules do not have.
	ID string
	// What is what the rule finds, for docs/security.md.
	What string
	// Pattern is the expression, as docs/security.md shows it.
	Pattern string
	// Keywords are literals of which every match holds one (candidates looks for them): the
	// expression runs only on a text that holds one.
	Keywords []string
	re       *regexp.Regexp
	// group is the submatch replaced (0: the whole match): a credential named by its
	// context keeps the context.
	group int
}

func rule(id, what string, keywords []string, group int, pattern string) Rule {
	return Rule{ID: id, What: what, Pattern: pattern, Keywords: keywords, re: regexp.MustCompile(pattern), group: group}
}

// The rules' places in Rules, which candidates marks.
const (
	ruleGitHub = iota
	ruleFineGrained
	ruleAnthropic
	ruleOpenAI
	ruleAWSKeyID
	ruleAWSSecret
	ruleSlack
	ruleSlackApp
	ruleSlackWebhook
	ruleGoogle
	ruleAuthorization
	rulePrivateKey
)

// Rules are the credential shapes, in the order they are applied.
var Rules = [...]Rule{
	ruleGitHub: rule("github-pat, github-oauth, github-app-token, github-refresh-token",
		"GitHub tokens: classic personal (ghp_), OAuth (gho_), user-to-server (ghu_), server-to-server and the Actions GITHUB_TOKEN (ghs_), refresh (ghr_)",
		[]string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, 0, `gh[pousr]_[0-9A-Za-z]{20,}`),
	ruleFineGrained: rule("github-fine-grained-pat", "GitHub fine-grained personal access tokens",
		[]string{"github_pat_"}, 0, `github_pat_[0-9A-Za-z_]{20,}`),
	ruleAnthropic: rule("anthropic-api-key, anthropic-admin-api-key", "Anthropic API and admin keys (sk-ant-api03-…, sk-ant-admin01-…)",
		[]string{"sk-"}, 0, `\bsk-ant-[0-9A-Za-z_-]{20,}`),
	ruleOpenAI: rule("openai-api-key", "OpenAI keys: project, service-account and admin (sk-proj-…, sk-svcacct-…, sk-admin-…) and legacy user keys (sk- and 48 letters and digits)",
		[]string{"sk-"}, 0, `\bsk-(?:(?:proj|svcacct|admin)-[0-9A-Za-z_-]{20,}|[0-9A-Za-z]{32,})`),
	ruleAWSKeyID: rule("aws-access-token", "AWS access key ids (AKIA…, ASIA…, ABIA…, ACCA…, A3T…)",
		[]string{"AKIA", "ASIA", "ABIA", "ACCA", "A3T"}, 0, `\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b`),
	ruleAWSSecret: rule("agentgate:aws-secret-access-key", "AWS secret access keys (40 characters of base64) under their names: AWS_SECRET_ACCESS_KEY, aws_secret_access_key, SecretAccessKey",
		[]string{"ccess_key (any case)", "AccessKey"}, 1, `(?i)secret_?access_?key[\\"']{0,2}\s*(?:=|:|=>|:=)\s*[\\"']{0,2}([0-9A-Za-z/+]{40})(?:[^0-9A-Za-z/+=]|$)`),
	ruleSlack: rule("slack-bot-token, slack-user-token, slack-legacy-token, slack-legacy-bot-token, slack-legacy-workspace-token, slack-config-access-token, slack-config-refresh-token",
		"Slack tokens (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxo-, xoxe-)",
		[]string{"xox?-"}, 0, `\bxox[abposre]-[0-9A-Za-z-]{10,}`),
	ruleSlackApp: rule("slack-app-token", "Slack app-level tokens (xapp-)",
		[]string{"xapp-"}, 0, `\bxapp-\d-[0-9A-Za-z-]{10,}`),
	ruleSlackWebhook: rule("slack-webhook-url", "Slack webhook URLs",
		[]string{"hooks.slack.com"}, 0, `(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[0-9A-Za-z+/]{20,}`),
	ruleGoogle: rule("gcp-api-key", "Google API keys (AIza…)",
		[]string{"AIza"}, 0, `\bAIza[0-9A-Za-z_-]{35}`),
	ruleAuthorization: rule("agentgate:authorization-header", "the credential of an HTTP Authorization header (Basic, Bearer, token), as `git config -l` shows the one actions/checkout stores (http.…extraheader=AUTHORIZATION: basic …)",
		[]string{"authoriz (any case)"}, 1, `(?i)\bauthorization[\\"']{0,2}\s*[:=]\s*[\\"']{0,2}(?:basic|bearer|token)\s+([0-9A-Za-z+/=._~-]{8,})`),
	rulePrivateKey: {ID: "private-key", What: "private-key blocks (-----BEGIN … PRIVATE KEY----- to its END line, or to the end of its base64 when it has none)",
		Pattern: `-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----`, Keywords: []string{"-----BEGIN"}},
}

// trigger marks the bytes at which candidates looks for a keyword: one byte of each, rare in
// prose ("z" of "authoriz", "K" of "AccessKey") or in few keywords' places.
var trigger = [256]bool{'_': true, '-': true, '.': true, 'A': true, 'K': true, 'z': true, 'Z': true}

// candidates returns the rules (bit i for Rules[i]) one of whose keywords s holds, in one
// pass over s: a byte at a time, looking around only the trigger bytes. Text without a
// keyword, the common case, costs that pass.
func candidates(s string) uint32 {
	var run uint32
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !trigger[c] {
			continue
		}
		switch c {
		case '_':
			if i >= 3 && s[i-3] == 'g' && s[i-2] == 'h' && strings.IndexByte("pousr", s[i-1]) >= 0 {
				run |= 1 << ruleGitHub
			}
			if i >= 6 && s[i-6:i] == "github" && strings.HasPrefix(s[i:], "_pat_") {
				run |= 1 << ruleFineGrained
			}
			if i >= 5 && strings.EqualFold(s[i-5:i], "ccess") && len(s) >= i+4 && strings.EqualFold(s[i+1:i+4], "key") {
				run |= 1 << ruleAWSSecret
			}
		case '-':
			if i >= 2 && s[i-2] == 's' && s[i-1] == 'k' {
				run |= 1<<ruleAnthropic | 1<<ruleOpenAI
			}
			if i >= 4 && s[i-4:i-1] == "xox" {
				run |= 1 << ruleSlack
			}
			if i >= 4 && s[i-4:i] == "xapp" {
				run |= 1 << ruleSlackApp
			}
			if strings.HasPrefix(s[i:], "-----BEGIN") {
				run |= 1 << rulePrivateKey
			}
		case '.':
			if i >= 5 && s[i-5:i] == "hooks" && strings.HasPrefix(s[i:], ".slack.com") {
				run |= 1 << ruleSlackWebhook
			}
		case 'A':
			if len(s) >= i+4 {
				switch s[i : i+4] {
				case "AKIA", "ASIA", "ABIA", "ACCA":
					run |= 1 << ruleAWSKeyID
				case "AIza":
					run |= 1 << ruleGoogle
				}
				if s[i+1] == '3' && s[i+2] == 'T' {
					run |= 1 << ruleAWSKeyID
				}
			}
		case 'K':
			if i >= 6 && s[i-6:i] == "Access" {
				run |= 1 << ruleAWSSecret
			}
		case 'z', 'Z':
			if i >= 7 && strings.EqualFold(s[i-7:i+1], "authoriz") {
				run |= 1 << ruleAuthorization
			}
		}
	}
	return run
}

// Redact returns s with every credential of a known shape replaced by with.
func Redact(s, with string) string {
	run := candidates(s)
	for i := range Rules {
		if run&(1<<i) != 0 {
			s = replace(s, spans(i, s), with)
		}
	}
	return s
}

// RedactBytes is Redact for bytes: b itself when it holds no credential.
func RedactBytes(b []byte, with string) []byte {
	if len(b) == 0 {
		return b
	}
	s := unsafe.String(&b[0], len(b)) // read only, for the length of the call
	if r := Redact(s, with); r != s {
		return []byte(r)
	}
	return b
}

// Find returns the credentials of a known shape in s, as Redact would replace them.
func Find(s string) []string {
	var out []string
	run := candidates(s)
	for i := range Rules {
		if run&(1<<i) != 0 {
			for _, sp := range spans(i, s) {
				out = append(out, s[sp[0]:sp[1]])
			}
		}
	}
	return out
}

// Contains reports whether s holds a credential of a known shape.
func Contains(s string) bool {
	run := candidates(s)
	for i := range Rules {
		if run&(1<<i) != 0 && len(spans(i, s)) > 0 {
			return true
		}
	}
	return false
}

// spans returns the parts of s that rule i replaces, in order and apart.
func spans(i int, s string) [][2]int {
	if i == rulePrivateKey {
		return keyBlocks(s)
	}
	g := Rules[i].group
	var out [][2]int
	for _, m := range Rules[i].re.FindAllStringSubmatchIndex(s, -1) {
		if m[2*g] >= 0 {
			out = append(out, [2]int{m[2*g], m[2*g+1]})
		}
	}
	return out
}

// replace replaces the spans of s by with.
func replace(s string, spans [][2]int, with string) string {
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	done := 0
	for _, sp := range spans {
		b.WriteString(s[done:sp[0]])
		b.WriteString(with)
		done = sp[1]
	}
	b.WriteString(s[done:])
	return b.String()
}

const (
	beginMarker = "-----BEGIN"
	keyMarker   = "PRIVATE KEY"
	endMarker   = "-----END"
	// maxKeyKind is the most characters between beginMarker and keyMarker ("RSA ", "ENCRYPTED ").
	maxKeyKind = 100
)

// nextKeyHeader returns where the first private-key header (Rules[rulePrivateKey].Pattern)
// at or after from starts and ends, or -1, -1. It finds keyMarker, then looks back at most
// maxKeyKind characters for the nearest beginMarker: bounded work per marker, so linear in s
// (the expression, with its 100 optional characters, read 2.7 MB/s).
func nextKeyHeader(s string, from int) (int, int) {
	start := from // a header found must begin here or later: the spans before it are taken
	for {
		i := strings.Index(s[from:], keyMarker)
		if i < 0 {
			return -1, -1
		}
		at := from + i
		from = at + len(keyMarker)
		end := from
		if strings.HasPrefix(s[end:], " BLOCK") {
			end += len(" BLOCK")
		}
		if !strings.HasPrefix(s[end:], "-----") {
			continue
		}
		end += len("-----")
		lo := max(start, at-maxKeyKind-len(beginMarker))
		if j := strings.LastIndex(s[lo:at], beginMarker); j >= 0 && kindBytes(s[lo+j+len(beginMarker):at]) {
			return lo + j, end
		}
	}
}

// kindBytes reports whether s is all [ A-Z0-9_-], the characters of a key's kind.
func kindBytes(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == ' ' || c == '_' || c == '-' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// keyBlocks returns the private-key blocks of s: from a header to the end of the END line
// that follows, or, with no END after it, through the base64 body (letters, digits, +, /, =,
// white space and the \n and \r escapes of a JSON string). One pass: the END marker is looked
// for once from each header, and not again once none is left.
func keyBlocks(s string) [][2]int {
	var out [][2]int
	noEnd := false
	for from := 0; ; {
		h0, h1 := nextKeyHeader(s, from)
		if h0 < 0 {
			return out
		}
		end := -1
		if !noEnd {
			if i := strings.Index(s[h1:], endMarker); i >= 0 {
				end = h1 + i + len(endMarker)
				if j := strings.Index(s[end:], "-----"); j >= 0 && j <= maxKeyKind+len(keyMarker)+len(" BLOCK") {
					end += j + len("-----")
				}
			} else {
				noEnd = true
			}
		}
		if end < 0 {
			end = h1 + base64Body(s[h1:])
		}
		out = append(out, [2]int{h0, end})
		from = end
	}
}

// base64Body is the length of the base64 body at the start of s.
func base64Body(s string) int {
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/', c == '=', c == ' ', c == '\t', c == '\n', c == '\r':
			i++
		case c == '\\' && i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 'r'):
			i += 2
		default:
			return i
		}
	}
	return i
}

// minEncoded is the shortest secret whose encoded forms are redacted: a shorter one's base64
// is too short to tell from other text.
const minEncoded = 8

// Encodings returns the base64 forms (standard and URL alphabets) of secret wherever it
// sits in the encoded text, so that "basic base64(x-access-token:TOKEN)", as actions/checkout
// stores it in .git/config, is found whatever comes before the token: base64 maps three bytes
// to four characters, so the token's own characters depend on its offset modulo 3; for each
// offset, the characters that come from the token's bytes alone. None for a secret shorter
// than minEncoded bytes.
func Encodings(secret string) []string {
	if len(secret) < minEncoded {
		return nil
	}
	var out []string
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for k := 0; k < 3; k++ {
			e := enc.EncodeToString(append(make([]byte, k), secret...))
			first := (8*k + 5) / 6              // the first character whose bits all come from the secret
			last := (8*(k+len(secret)) - 6) / 6 // the last one
			if core := e[first : last+1]; !slices.Contains(out, core) {
				out = append(out, core)
			}
		}
	}
	return out
}
