package entrypoint

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
)

// readConfig reads a --config file: YAML with the action's inputs as top-level keys. Only the
// YAML a flat settings file needs is accepted — `key: value` (plain, 'single' or "double"
// quoted), block lists (`- item`), flow lists (`[a, b]`), literal blocks (`|`) and comments —
// and anything else is an error naming the line, rather than a silently ignored setting.
//
// secrets holds the values of secret keys (github-token) seen before any error, so the caller
// can mask them before it prints anything; an error never quotes them (SPEC §13).
func readConfig(path string) (cfg map[string]setting, secrets []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, &input.Error{File: path, Msg: fmt.Sprintf("cannot open config: %v", unwrapPath(err))}
	}
	defer f.Close()
	return parseConfig(path, f)
}

// secretKeys are the settings whose values are secrets: masked under Actions, never quoted.
var secretKeys = []string{"github-token"}

func isSecret(key string) bool { return slices.Contains(secretKeys, key) }

// errSecretValue stands for a decoding error of a secret's value, which would quote it.
var errSecretValue = errors.New("the value is not a valid plain or quoted string (it is not shown: it is a secret)")

func parseConfig(path string, r io.Reader) (out map[string]setting, secrets []string, err error) {
	out = map[string]setting{}
	// A token pasted under any key, or on a line of its own, is a secret too: the values of
	// token shape go after those of the secret keys, whatever way the function returns.
	var shaped []string
	defer func() { secrets = append(secrets, shaped...) }()
	// secret records the value of a secret key, and, when it could not be decoded, the raw
	// text it came from.
	secret := func(key string, vals ...string) {
		if isSecret(key) {
			for _, v := range vals {
				if v = strings.TrimSpace(v); v != "" {
					secrets = append(secrets, v)
				}
			}
		}
	}
	// scalarOf decodes a value of key; a secret's decoding error does not quote it.
	scalarOf := func(key, raw string) (string, error) {
		v, err := scalar(raw)
		if err != nil {
			secret(key, raw, strings.Trim(raw, `"' `))
			if isSecret(key) {
				return "", errSecretValue
			}
			return "", err
		}
		secret(key, v)
		return v, nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	fail := func(line int, format string, args ...any) error {
		return &input.Error{File: path, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	var (
		lineNo   int
		curKey   string // key whose block list or literal block is being read
		curLine  int
		block    string // "list" or "literal"
		items    []string
		indent   = -1
		finished = func() {
			if curKey != "" {
				sep := ","
				if block == "literal" {
					sep = "\n"
				}
				out[curKey] = setting{strings.Join(items, sep), fmt.Sprintf("%s:%d", path, curLine)}
				if block == "literal" {
					secret(curKey, items...) // the runner masks line by line
				}
			}
			curKey, block, items, indent = "", "", nil, -1
		}
	)
	for sc.Scan() {
		lineNo++
		raw := strings.TrimRight(sc.Text(), " \t\r")
		if lineNo == 1 {
			raw = strings.TrimPrefix(raw, "\ufeff")
		}
		shaped = append(shaped, tokensIn(raw)...)
		trimmed := strings.TrimSpace(raw)
		if strings.HasPrefix(raw, "\t") {
			return nil, secrets, fail(lineNo, "tabs cannot indent YAML; use spaces")
		}
		lead := len(raw) - len(strings.TrimLeft(raw, " "))
		if curKey != "" && (trimmed == "" || lead > 0) {
			if trimmed == "" {
				if block == "literal" {
					items = append(items, "")
				}
				continue
			}
			switch block {
			case "list":
				if strings.HasPrefix(trimmed, "#") {
					continue
				}
				if !strings.HasPrefix(trimmed, "- ") && trimmed != "-" {
					return nil, secrets, fail(lineNo, "expected a list item (`- value`) under %q", curKey)
				}
				v, err := scalarOf(curKey, strings.TrimSpace(strings.TrimPrefix(trimmed, "-")))
				if err != nil {
					return nil, secrets, fail(lineNo, "%s: %v", curKey, err)
				}
				items = append(items, v)
			case "literal":
				if indent < 0 {
					indent = lead
				}
				if lead < indent {
					return nil, secrets, fail(lineNo, "the block under %q is indented less than its first line", curKey)
				}
				items = append(items, raw[indent:])
			}
			continue
		}
		finished()
		if trimmed == "" || strings.HasPrefix(trimmed, "#") || trimmed == "---" {
			continue
		}
		if lead > 0 {
			return nil, secrets, fail(lineNo, "unexpected indentation: settings are top-level `key: value` lines (the action's input names)")
		}
		key, rest, ok := strings.Cut(trimmed, ":")
		if !ok {
			// The line is not quoted: it may be a secret pasted without its key.
			if first, _, _ := strings.Cut(trimmed, " "); knownKey(first) {
				return nil, secrets, fail(lineNo, "expected `key: value`, found %q without a colon", first)
			}
			return nil, secrets, fail(lineNo, "expected `key: value`; this line has no colon")
		}
		key = strings.TrimSpace(key)
		if !knownKey(key) {
			return nil, secrets, fail(lineNo, "unknown setting %q; known settings: %s", key, strings.Join(settingKeys, ", "))
		}
		if key == "config" {
			return nil, secrets, fail(lineNo, "a config file cannot name another config file")
		}
		if _, dup := out[key]; dup {
			return nil, secrets, fail(lineNo, "%q is set twice", key)
		}
		rest = strings.TrimSpace(rest)
		switch {
		case rest == "" || strings.HasPrefix(rest, "#"):
			curKey, curLine, block = key, lineNo, "list"
		case rest == "|" || rest == "|-":
			curKey, curLine, block = key, lineNo, "literal"
		case strings.HasPrefix(rest, "["):
			inner, ok := strings.CutSuffix(stripComment(rest), "]")
			if !ok {
				secret(key, rest)
				return nil, secrets, fail(lineNo, "%s: a flow list must close on the same line with ]", key)
			}
			var vals []string
			for _, part := range strings.Split(strings.TrimPrefix(inner, "["), ",") {
				if part = strings.TrimSpace(part); part == "" {
					continue
				}
				v, err := scalarOf(key, part)
				if err != nil {
					return nil, secrets, fail(lineNo, "%s: %v", key, err)
				}
				vals = append(vals, v)
			}
			out[key] = setting{strings.Join(vals, ","), fmt.Sprintf("%s:%d", path, lineNo)}
		case strings.HasPrefix(rest, "{") || strings.HasPrefix(rest, "&") || strings.HasPrefix(rest, "*") || strings.HasPrefix(rest, ">"):
			secret(key, rest)
			return nil, secrets, fail(lineNo, "%s: only plain values, quoted strings, lists and | blocks are supported", key)
		default:
			v, err := scalarOf(key, rest)
			if err != nil {
				return nil, secrets, fail(lineNo, "%s: %v", key, err)
			}
			out[key] = setting{v, fmt.Sprintf("%s:%d", path, lineNo)}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, secrets, &input.Error{File: path, Line: lineNo + 1, Msg: fmt.Sprintf("read error: %v", err)}
	}
	finished()
	return out, secrets, nil
}

// scalar decodes one plain or quoted YAML scalar.
func scalar(s string) (string, error) {
	switch {
	case strings.HasPrefix(s, `"`):
		end := closingQuote(s)
		if end < 0 {
			return "", fmt.Errorf("unterminated double-quoted string")
		}
		v, err := strconv.Unquote(s[:end+1])
		if err != nil {
			return "", fmt.Errorf("bad double-quoted string %s", s[:end+1])
		}
		if rest := strings.TrimSpace(s[end+1:]); rest != "" && !strings.HasPrefix(rest, "#") {
			return "", fmt.Errorf("unexpected %q after the quoted string", rest)
		}
		return v, nil
	case strings.HasPrefix(s, "'"):
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			if s[i] == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				if rest := strings.TrimSpace(s[i+1:]); rest != "" && !strings.HasPrefix(rest, "#") {
					return "", fmt.Errorf("unexpected %q after the quoted string", rest)
				}
				return b.String(), nil
			}
			b.WriteByte(s[i])
		}
		return "", fmt.Errorf("unterminated single-quoted string")
	}
	return stripComment(s), nil
}

// closingQuote returns the index of the quote closing the double-quoted string at s[0].
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// stripComment drops a trailing " # comment" from a plain scalar.
func stripComment(s string) string {
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
