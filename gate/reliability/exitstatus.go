package reliability

import "strings"

// The default profile reads a tool result as failed when its text reports a non-zero exit
// status, whatever its format's success flag says: code-execution tools write their failures
// as text ("exitcode: 1 (execution failed)", "<returncode>1</returncode>", "Command failed
// with exit code 2", "[Command finished with exit code 1]", "returned non-zero exit status 1"),
// which a format's error flag rarely carries. The readers stay profile-agnostic; the
// evaluator decides (e.failedRes).
//
// Harnesses write the status on the first or the last lines of a result, so only the first
// and the last statusWindow bytes are read: the scan is linear and bounded, and a file listing
// that mentions an exit code in its middle is not taken for a status.

// statusWindow is how many bytes at each end of a result are searched for an exit status.
const statusWindow = 256

// exitStatus returns the status text ("exit code: 1") when text reports a non-zero exit
// status, else "".
func exitStatus(text string) string {
	if len(text) <= 2*statusWindow {
		return exitStatusIn(text)
	}
	if s := exitStatusIn(text[:statusWindow]); s != "" {
		return s
	}
	return exitStatusIn(text[len(text)-statusWindow:])
}

// exitStatusIn finds a non-zero exit status in s: "exit", an optional space, "_" or "-", and
// "code" or "status"; "exited with code" or "exited with status"; or "return", an optional
// separator, and "code"; each in any case and not inside a longer word, then
// an optional quote or ">", an optional ":" or "=" between spaces, and an integer. Each match
// is tried where "xit" or "eturn" occurs (strings.Index finds those fast) and costs at most
// a few dozen bytes, so the scan stays linear.
func exitStatusIn(s string) string {
	if !mayHoldStatus(s) {
		return ""
	}
	for i := 0; i+4 <= len(s); i++ {
		if i > 0 && isASCIILetter(s[i-1]) {
			continue // inside a word ("preexit")
		}
		var n int
		switch s[i] | 0x20 {
		case 'e':
			n = keyword(s[i:], "exit", "code", "status")
			if n == 0 && hasFoldPrefix(s[i:], "exited with ") {
				// "exited with code 1", "exited with status 1"
				if m := keyword(s[i+len("exited with "):], "", "code", "status"); m > 0 {
					n = len("exited with ") + m
				}
			}
		case 'r':
			n = keyword(s[i:], "return", "code", "")
		default:
			continue
		}
		if n == 0 {
			continue
		}
		if end, nonZero := statusValue(s, i+n); end > 0 {
			if nonZero {
				return s[i:end]
			}
			i = end - 1
		}
	}
	return ""
}

// mayHoldStatus is the quick test before the byte-by-byte search: s holds "xit" or "eturn" in
// lower or upper case.
func mayHoldStatus(s string) bool {
	return strings.Contains(s, "xit") || strings.Contains(s, "XIT") ||
		strings.Contains(s, "eturn") || strings.Contains(s, "ETURN")
}

// keyword matches head, an optional " ", "_" or "-", then one of the tails, case-insensitively,
// at the start of s, not inside a longer word. It returns the length matched, or 0.
func keyword(s, head, tail1, tail2 string) int {
	if !hasFoldPrefix(s, head) {
		return 0
	}
	n := len(head)
	if n > 0 && n < len(s) && (s[n] == ' ' || s[n] == '_' || s[n] == '-') {
		n++
	}
	for _, tail := range [2]string{tail1, tail2} {
		if tail != "" && hasFoldPrefix(s[n:], tail) {
			n += len(tail)
			if n < len(s) && isASCIILetter(s[n]) {
				return 0 // "exit codes", "exit statuses"
			}
			return n
		}
	}
	return 0
}

// statusValue reads what follows a keyword at s[i:]: an optional closing quote or ">", spaces,
// an optional ":" or "=", spaces, an optional quote, then an integer with an optional sign. It
// returns the end of the integer (0 when there is none) and whether it is not zero.
func statusValue(s string, i int) (end int, nonZero bool) {
	if i < len(s) && (s[i] == '"' || s[i] == '\'' || s[i] == '>') {
		i++
	}
	i = skipBlanks(s, i)
	if i < len(s) && (s[i] == ':' || s[i] == '=') {
		i++
		if i < len(s) && s[i] == '=' {
			return 0, false // "returncode == 1" is a comparison in code, not a status
		}
	}
	i = skipBlanks(s, i)
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		nonZero = nonZero || s[i] != '0'
		i++
	}
	if i == start || (i < len(s) && (isASCIILetter(s[i]) || s[i] == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9')) {
		return 0, false // no integer, or a word or a decimal number ("exit code 1st", "1.5")
	}
	return i, nonZero
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// hasFoldPrefix reports whether s begins with prefix (lower-case ASCII letters) in any case.
func hasFoldPrefix(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if s[i]|0x20 != prefix[i] {
			return false
		}
	}
	return true
}
