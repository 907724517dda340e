package entrypoint

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/secrets"
)

// maxConfigBytes is the largest config file read: a settings file is a few hundred bytes, and
// a bigger one is a mistake (or hostile) rather than settings.
const maxConfigBytes = 1 << 20

// readConfig reads a --config file: a YAML mapping whose keys are the action's input names.
// Any YAML is accepted (block or flow lists, quoted keys and values, | and > blocks, anchors);
// a value must be a single value or a list of them, and anything else is an error naming its
// line and column, rather than a silently ignored setting.
//
// secrets holds the values of secret keys (github-token) and the token-shaped values of any
// key, also when the file is malformed, so the caller can mask them before it prints anything;
// an error never quotes them (docs/design.md#trust-boundaries).
func readConfig(path string) (cfg map[string]setting, secrets []string, err error) {
	f, err := input.OpenRegular(path) // a FIFO or device is refused, without blocking
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > maxConfigBytes {
		return nil, nil, configTooLarge(path)
	}
	return parseConfig(path, f)
}

// configTooLarge is the error for a config file over maxConfigBytes.
func configTooLarge(path string) error {
	return &input.Error{File: path, Msg: fmt.Sprintf("not read: a config file holds at most %d bytes (1 MiB) of settings", maxConfigBytes)}
}

// secretKeys are the settings whose values are secrets: masked under Actions, never quoted.
var secretKeys = []string{"github-token"}

func isSecret(key string) bool { return slices.Contains(secretKeys, key) }

// yamlLine is the position and message of the YAML library's syntax errors.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func parseConfig(path string, r io.Reader) (out map[string]setting, secrets []string, err error) {
	data, err := io.ReadAll(io.LimitReader(r, maxConfigBytes+1))
	if err != nil {
		return nil, nil, &input.Error{File: path, Msg: fmt.Sprintf("read error: %v", err)}
	}
	// A token pasted under any key, or on a line of its own, is a secret too: the values of
	// token shape go after those of the secret keys, whatever way the function returns.
	shaped := tokensIn(string(data))
	defer func() { secrets = append(secrets, shaped...) }()
	if len(data) > maxConfigBytes {
		return nil, nil, configTooLarge(path)
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return map[string]setting{}, nil, nil // empty, or comments only
		}
		return nil, salvageSecrets(data), yamlError(path, data, err)
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, salvageSecrets(data), yamlError(path, data, err)
		}
		return nil, salvageSecrets(data), nodeError(path, &more, "a config file holds one YAML document; this is a second one")
	}
	c := &configReader{path: path, out: map[string]setting{}}
	err = c.read(&doc)
	return c.out, c.secrets, err
}

// configReader turns a YAML document into settings, collecting secrets as it goes.
type configReader struct {
	path    string
	out     map[string]setting
	secrets []string
}

func (c *configReader) read(doc *yaml.Node) error {
	root := doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil // "---" alone, or "~"
	}
	if root.Kind == yaml.ScalarNode {
		return nodeError(c.path, root, "a config file is a mapping of settings (`key: value` lines, the action's input names); this is a single value: is a colon missing?")
	}
	if root.Kind != yaml.MappingNode {
		return nodeError(c.path, root, "a config file is a mapping of settings (`key: value` lines, the action's input names), not a "+kindName(root))
	}
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nodeError(c.path, k, "a setting's name is a plain word (an action input's name), not a "+kindName(k))
		}
		key := k.Value
		if isSecret(key) {
			c.secretValues(v)
		}
		if !knownKey(key) {
			return nodeError(c.path, k, unknownSetting(key))
		}
		def := settingTable[slices.IndexFunc(settingTable, func(d settingDef) bool { return d.name == key })]
		if key == "config" {
			return nodeError(c.path, k, "a config file cannot name another config file")
		}
		if v := resolve(v); v.Kind == yaml.SequenceNode && def.kind != kindList {
			return nodeError(c.path, v, fmt.Sprintf("%s takes one value, not a list", key))
		}
		if first, dup := seen[key]; dup {
			return nodeError(c.path, k, fmt.Sprintf("%q is set twice (first on line %d)", key, first.Line))
		}
		seen[key] = k
		s, err := c.value(key, v)
		if err != nil {
			return err
		}
		c.out[key] = s
	}
	return nil
}

// value is the setting a key's value node holds: a scalar, or a list of scalars.
func (c *configReader) value(key string, v *yaml.Node) (setting, error) {
	src := fmt.Sprintf("%s:%d:%d", c.path, v.Line, v.Column) // an alias's own place
	v = resolve(v)
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" && v.Style == 0 {
			return setting{source: src}, nil // `key:` with nothing after it
		}
		return setting{value: v.Value, source: src}, nil
	case yaml.SequenceNode:
		items := []string{}
		for _, it := range v.Content {
			it = resolve(it)
			if it.Kind != yaml.ScalarNode {
				return setting{}, nodeError(c.path, it, fmt.Sprintf("%s: a list item is a single value, not a %s", key, kindName(it)))
			}
			if it.Tag == "!!null" && it.Style == 0 {
				continue // `- ` with nothing after it
			}
			items = append(items, it.Value)
		}
		return setting{value: strings.Join(items, "\n"), source: src, items: items}, nil
	}
	return setting{}, nodeError(c.path, v, fmt.Sprintf("%s: a setting's value is a single value or a list, not a %s", key, kindName(v)))
}

// secretValues records the scalars under a secret key, and each line of a block (the runner
// masks line by line).
func (c *configReader) secretValues(v *yaml.Node) {
	var add func(n *yaml.Node, depth int)
	add = func(n *yaml.Node, depth int) {
		n = resolve(n)
		if n.Kind == yaml.ScalarNode {
			for _, line := range strings.Split(n.Value, "\n") {
				if line = strings.TrimSpace(line); line != "" {
					c.secrets = append(c.secrets, line)
				}
			}
			return
		}
		if depth < 2 {
			for _, it := range n.Content {
				add(it, depth+1)
			}
		}
	}
	add(v, 0)
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// kindName says what a node is, in the words of the error messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "single value"
	}
	return "YAML node"
}

// unknownSetting is the error for a key that names no setting: the closest setting when the
// key looks misspelled, as for flags.
func unknownSetting(key string) string {
	if secrets.Contains(key) {
		return "unknown setting (not shown: it looks like a token)"
	}
	msg := fmt.Sprintf("unknown setting %s", input.Quote(key))
	if best, ok := closest(key, settingKeys); ok {
		return msg + ": did you mean " + best + "?"
	}
	return msg + " (the settings are the action's inputs: agentgate gate --help lists them)"
}

// nodeError is an error at a node's line and column.
func nodeError(path string, n *yaml.Node, msg string) error {
	return &input.Error{File: path, Line: n.Line, Col: n.Column, Msg: msg}
}

// parserProblems begin the YAML library's parser errors (as opposed to its scanner's): their
// line is counted from 0.
var parserProblems = []string{"did not find expected ", "found duplicate %", "found incompatible YAML", "found undefined tag"}

// yamlError turns the YAML library's error into an input error at its line. Its messages
// name the problem, never the text where it is, so they cannot quote a secret. The library
// counts the scanner's lines from 1 and the parser's from 0, and leaves out a line 0; a
// parser error's line is where the mapping or list it was reading began.
func yamlError(path string, data []byte, err error) error {
	line, msg := 1, strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
		if slices.ContainsFunc(parserProblems, func(p string) bool { return strings.HasPrefix(msg, p) }) {
			line++
		}
	}
	if lines := strings.Split(string(data), "\n"); line <= len(lines) && strings.HasPrefix(lines[line-1], "\t") {
		msg += " (a tab: YAML indents with spaces)"
	}
	// An anchor's name is the one piece of text a message may hold.
	msg = secrets.Redact(msg, redacted)
	return &input.Error{File: path, Line: line, Msg: "invalid YAML: " + msg}
}

// secretLine is a line that sets a secret key, as far as a file that is not valid YAML shows.
var secretLine = regexp.MustCompile(`^\s*(?:-\s+)?["']?([a-z-]+)["']?\s*:(.*)$`)

// salvageSecrets finds the values of secret keys in a file the YAML library could not read:
// the rest of each line that sets one, as written and without its quotes, and the lines of a
// list or block under it. They are masked before the error is printed.
func salvageSecrets(data []byte) []string {
	var out []string
	under := -1 // the indentation of the secret key whose lines are being collected
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, " \t\r")
		indent := len(line) - len(strings.TrimLeft(line, " \t"))
		if under >= 0 && (indent > under || strings.TrimSpace(line) == "") {
			if v := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "- ")); v != "" {
				out = appendRaw(out, v, `"' `)
			}
			continue
		}
		under = -1
		m := secretLine.FindStringSubmatch(line)
		if m == nil || !isSecret(m[1]) {
			continue
		}
		if v := strings.TrimSpace(m[2]); v != "" && v != "|" && v != ">" && v != "|-" && v != ">-" {
			out = appendRaw(out, v, `"'[]{} `)
		} else {
			under = indent
		}
	}
	return out
}

// appendRaw appends v, and v without the cut characters around it when that differs.
func appendRaw(out []string, v, cut string) []string {
	out = append(out, v)
	if t := strings.Trim(v, cut); t != "" && t != v {
		out = append(out, t)
	}
	return out
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
