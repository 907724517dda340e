package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
)

// readConfig reads a --config file: YAML with the action's inputs as top-level keys. Only the
// YAML a flat settings file needs is accepted — `key: value` (plain, 'single' or "double"
// quoted), block lists (`- item`), flow lists (`[a, b]`), literal blocks (`|`) and comments —
// and anything else is an error naming the line, rather than a silently ignored setting.
func readConfig(path string) (map[string]setting, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &input.Error{File: path, Msg: fmt.Sprintf("cannot open config: %v", unwrapPath(err))}
	}
	defer f.Close()
	return parseConfig(path, f)
}

func parseConfig(path string, r io.Reader) (map[string]setting, error) {
	out := map[string]setting{}
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
		trimmed := strings.TrimSpace(raw)
		if strings.HasPrefix(raw, "\t") {
			return nil, fail(lineNo, "tabs cannot indent YAML; use spaces")
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
					return nil, fail(lineNo, "expected a list item (`- value`) under %q", curKey)
				}
				v, err := scalar(strings.TrimSpace(strings.TrimPrefix(trimmed, "-")))
				if err != nil {
					return nil, fail(lineNo, "%s: %v", curKey, err)
				}
				items = append(items, v)
			case "literal":
				if indent < 0 {
					indent = lead
				}
				if lead < indent {
					return nil, fail(lineNo, "the block under %q is indented less than its first line", curKey)
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
			return nil, fail(lineNo, "unexpected indentation: settings are top-level `key: value` lines (the action's input names)")
		}
		key, rest, ok := strings.Cut(trimmed, ":")
		if !ok {
			return nil, fail(lineNo, "expected `key: value`, found %q", trimmed)
		}
		key = strings.TrimSpace(key)
		if !knownKey(key) {
			return nil, fail(lineNo, "unknown setting %q; known settings: %s", key, strings.Join(settingKeys, ", "))
		}
		if key == "config" {
			return nil, fail(lineNo, "a config file cannot name another config file")
		}
		if _, dup := out[key]; dup {
			return nil, fail(lineNo, "%q is set twice", key)
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
				return nil, fail(lineNo, "%s: a flow list must close on the same line with ]", key)
			}
			var vals []string
			for _, part := range strings.Split(strings.TrimPrefix(inner, "["), ",") {
				if part = strings.TrimSpace(part); part == "" {
					continue
				}
				v, err := scalar(part)
				if err != nil {
					return nil, fail(lineNo, "%s: %v", key, err)
				}
				vals = append(vals, v)
			}
			out[key] = setting{strings.Join(vals, ","), fmt.Sprintf("%s:%d", path, lineNo)}
		case strings.HasPrefix(rest, "{") || strings.HasPrefix(rest, "&") || strings.HasPrefix(rest, "*") || strings.HasPrefix(rest, ">"):
			return nil, fail(lineNo, "%s: only plain values, quoted strings, lists and | blocks are supported", key)
		default:
			v, err := scalar(rest)
			if err != nil {
				return nil, fail(lineNo, "%s: %v", key, err)
			}
			out[key] = setting{v, fmt.Sprintf("%s:%d", path, lineNo)}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &input.Error{File: path, Line: lineNo + 1, Msg: fmt.Sprintf("read error: %v", err)}
	}
	finished()
	return out, nil
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
