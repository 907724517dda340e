package secrets

import (
	"encoding/base64"
	"strings"
	"testing"
)

// Credentials of every shape, made up in the forms their issuers write (lengths as gitleaks'
// rules give them), each redacted in a line of text around it; and text that only looks like
// one kept.
func TestRedactShapes(t *testing.T) {
	const (
		classic     = "ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ"
		fine        = "github_pat_11ABCDEFG0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789abcdefgh"
		openaiProj  = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-T3BlbkFJAbCdEfGhIjKlMnOpQrStUvWxYz"
		openaiOld   = "sk-AbCdEfGhIjKlMnOpQrStT3BlbkFJuVwXyZ0123456789abcd"
		anthropic   = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxyzAA"
		awsID       = "AKIAIOSFODNN7EXAMPLE"
		awsSecret   = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
		slackBot    = "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
		slackHook   = "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"
		slackApp    = "xapp-1-A0123456789-1234567890123-abcdef0123456789"
		google      = "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"
		checkoutB64 = "eC1hY2Nlc3MtdG9rZW46Z2hzXzE2QzdlNDJGMjkyYzY5MTJFNzcxMGM4MzgzNDdBZTE3OEI0YQ=="
	)
	key := "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1b2c3d4e5f6g7h8i9j0\nk1l2m3n4o5p6q7r8s9t0==\n-----END RSA PRIVATE KEY-----"
	for _, c := range []struct{ in, want string }{
		{"token " + classic + " set", "token *** set"},
		{"ghs_16C7e42F292c6912E7710c838347Ae178B4a,gho_16C7e42F292c6912E7710c838347Ae178B4a", "***,***"},
		{"GH_TOKEN=" + fine, "GH_TOKEN=***"},
		{`{"OPENAI_API_KEY": "` + openaiProj + `"}`, `{"OPENAI_API_KEY": "***"}`},
		{"export OPENAI_API_KEY=" + openaiOld, "export OPENAI_API_KEY=***"},
		{"x-api-key: " + anthropic + "\n", "x-api-key: ***\n"},
		{"AWS_ACCESS_KEY_ID=" + awsID + "\nAWS_SECRET_ACCESS_KEY=" + awsSecret + "\n", "AWS_ACCESS_KEY_ID=***\nAWS_SECRET_ACCESS_KEY=***\n"},
		{"aws_secret_access_key = " + awsSecret, "aws_secret_access_key = ***"},
		{`{\"SecretAccessKey\": \"` + awsSecret + `\", \"Expiration\"}`, `{\"SecretAccessKey\": \"***\", \"Expiration\"}`},
		{"SLACK_BOT_TOKEN=" + slackBot, "SLACK_BOT_TOKEN=***"},
		{"curl -X POST " + slackHook + " -d x", "curl -X POST *** -d x"},
		{"app " + slackApp, "app ***"},
		{"key=" + google + "&q=1", "key=***&q=1"},
		{"cat id_rsa\n" + key + "\n$ ls", "cat id_rsa\n***\n$ ls"},
		{`"output": "` + strings.ReplaceAll(key, "\n", `\n`) + `\n"`, `"output": "***\n"`},
		{"head -3 key.pem\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUA\nAAAEbm9uZQ\n$ ", "head -3 key.pem\n***$ "},
		{"http.https://github.com/.extraheader=AUTHORIZATION: basic " + checkoutB64 + "\ncore.bare=false", "http.https://github.com/.extraheader=AUTHORIZATION: basic ***\ncore.bare=false"},
		{`-H "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc_DEF-123"`, `-H "Authorization: Bearer ***"`},
		// kept: words, short ids, and the kinds without a secret
		{"the task-proj-12 asked for skeleton keys; ghp_ is a prefix, sk-ant- too", "the task-proj-12 asked for skeleton keys; ghp_ is a prefix, sk-ant- too"},
		{"AKIA is four letters, AKIAIOSFODNN7 is short, xoxb- alone, AIzaShort", "AKIA is four letters, AKIAIOSFODNN7 is short, xoxb- alone, AIzaShort"},
		{"the secret_access_key is unset; Authorization: Basic realm", "the secret_access_key is unset; Authorization: Basic realm"},
		{"-----BEGIN PUBLIC KEY-----\nMIIBIjANBg\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nMIIBIjANBg\n-----END PUBLIC KEY-----"},
	} {
		if got := Redact(c.in, "***"); got != c.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if got := string(RedactBytes([]byte(c.in), "***")); got != c.want {
			t.Errorf("RedactBytes(%q) = %q", c.in, got)
		}
		if Contains(c.in) != (c.in != c.want) {
			t.Errorf("Contains(%q) = %v", c.in, Contains(c.in))
		}
	}
}

// Many private-key headers without an END are each redacted through their base64 body, in one
// pass (the END is looked for once).
func TestPrivateKeyHeadersWithoutEnd(t *testing.T) {
	in := strings.Repeat("-----BEGIN PRIVATE KEY-----\nQUJD\n; ", 3)
	if got, want := Redact(in, "***"), "***; ***; ***; "; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	in = "-----BEGIN EC PRIVATE KEY-----\nQUJD\n-----BEGIN EC PRIVATE KEY-----\nREVG\n-----END EC PRIVATE KEY-----\nafter"
	if got, want := Redact(in, "***"), "***\nafter"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The base64 forms of a secret are found wherever it sits in the encoded text: base64 of the
// secret after any prefix of 0 to 5 bytes holds one of Encodings, in the standard and URL
// alphabets; actions/checkout's "basic base64(x-access-token:TOKEN)" (computed with Python's
// base64.b64encode) keeps only the prefix's characters and the last one, partly padding.
func TestEncodings(t *testing.T) {
	const token = "ghs_16C7e42F292c6912E7710c838347Ae178B4a"
	enc := Encodings(token)
	if len(enc) != 3 {
		t.Errorf("%d encodings, want 3 offsets (the token's base64 has no + or /, so the alphabets agree): %q", len(enc), enc)
	}
	if got := len(Encodings("pass~~~word???")); got != 6 {
		t.Errorf("%d encodings of a secret whose base64 holds + and /, want 6", got)
	}
	for _, e := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding} {
		for _, prefix := range []string{"", "x", "x-", "x-access-token:", "user:", "a:b:c"} {
			text := e.EncodeToString([]byte(prefix + token + ":tail"))
			found := false
			for _, s := range enc {
				found = found || strings.Contains(text, s)
			}
			if !found {
				t.Errorf("base64(%q + token) = %s holds none of %q", prefix, text, enc)
			}
		}
	}
	line := "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzXzE2QzdlNDJGMjkyYzY5MTJFNzcxMGM4MzgzNDdBZTE3OEI0YQ=="
	for _, s := range enc {
		line = strings.ReplaceAll(line, s, "***")
	}
	if want := "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46***Q=="; line != want {
		t.Errorf("got %q, want %q", line, want)
	}
	if Encodings("short") != nil {
		t.Errorf("a secret of 5 bytes has encodings")
	}
}

// FuzzRedact: what Redact leaves holds no credential of a known shape, and text without one
// is kept byte for byte.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{"ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"-----BEGIN PRIVATE KEY-----\nQUJD\n-----END PRIVATE KEY-----", "Authorization: Bearer abcdefghij", "plain text"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Redact(s, "***")
		if Contains(out) {
			t.Errorf("Redact(%q) = %q still holds a credential", s, out)
		}
		if !Contains(s) && out != s {
			t.Errorf("Redact(%q) = %q changed text without a credential", s, out)
		}
	})
}

// BenchmarkRedactPlain is the cost on text without a keyword, the common case: one substring
// search per keyword.
func BenchmarkRedactPlain(b *testing.B) {
	s := strings.Repeat(`{"role": "assistant", "content": "I will run the tests now and check the output."} `, 100)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Redact(s, "***")
	}
}

// BenchmarkRedactPrivateKeyHeaders is the adversarial case of the private-key rule: 20,000
// headers and no END, which a lazy expression walks to the end of the text from each.
func BenchmarkRedactPrivateKeyHeaders(b *testing.B) {
	s := strings.Repeat("-----BEGIN PRIVATE KEY-----;", 20000)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Redact(s, "***")
	}
}
