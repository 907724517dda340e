package entrypoint

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMaxInputBytes: through the gate (Sniff, then the pipeline), a decompression bomb and a
// file over max-input-bytes end with exit code 3 and a message naming the file, the limit and
// the setting that raises it; the setting is a flag, an action input and a config key, and
// a size that is not one is a usage error naming where it was given.
func TestMaxInputBytes(t *testing.T) {
	dir := t.TempDir()
	// 10 GB of newlines: a gzip member of 1 MiB written 10240 times (gzip reads them as one
	// stream)
	var mib bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&mib, gzip.BestCompression)
	gz.Write(bytes.Repeat([]byte{'\n'}, 1<<20))
	gz.Close()
	bomb := filepath.Join(dir, "nl.jsonl.gz")
	if err := os.WriteFile(bomb, bytes.Repeat(mib.Bytes(), 10<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	var records []byte
	for i := range 100 {
		records = fmt.Appendf(records, `{"trace_id": "t%d", "messages": [{"role": "user", "content": "hi"}]}`+"\n", i)
	}
	plain := filepath.Join(dir, "big.jsonl")
	if err := os.WriteFile(plain, records, 0o644); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "agentgate.yml")
	if err := os.WriteFile(config, []byte("max-input-bytes: 4KiB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tooLarge := plain + ": input too large: more than 4 KiB, the most an input may hold (max-input-bytes; raise it to read this file)\n"
	cases := []struct {
		name string
		args []string
		code int
		want string // stderr
	}{
		{"bomb", []string{"--traces", bomb}, 3, bomb + ": input too large: expands to more than 100 times its compressed size (64.0 MiB from 68.0 KiB), as a decompression bomb does; if it is genuine, set max-input-bytes to the most it may expand to\n"},
		{"flag", []string{"--traces", plain, "--max-input-bytes", "4KiB"}, 3, tooLarge},
		{"flag in bytes", []string{"--traces", plain, "--max-input-bytes", "4096"}, 3, tooLarge},
		{"config key", []string{"--traces", plain, "--config", config}, 3, tooLarge},
		{"raised", []string{"--traces", plain, "--max-input-bytes", "1M", "--comment=false"}, 0, ""},
		{"not a size", []string{"--traces", plain, "--max-input-bytes", "1 TB"}, 3, `--max-input-bytes: "1 TB" is not a size: want a positive number of bytes, as 1073741824 or 1GiB` + "\n"},
		{"zero", []string{"--traces", plain, "--max-input-bytes", "0"}, 3, `--max-input-bytes: "0" is not a size: want a positive number of bytes, as 1073741824 or 1GiB` + "\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := cli(t, "", append([]string{"gate"}, c.args...)...)
			if want := strings.TrimSuffix("agentgate: "+c.want, "agentgate: "); code != c.code || stderr != want {
				t.Errorf("exit %d, stderr %q\nwant exit %d, stderr %q", code, stderr, c.code, want)
			}
		})
	}
	// the action input
	getenv := func(k string) string {
		return map[string]string{"GITHUB_ACTIONS": "true", "INPUT_TRACES": plain, "INPUT_MAX-INPUT-BYTES": "4KiB", "INPUT_COMMENT": "false"}[k]
	}
	var out, errb bytes.Buffer
	if code := Main(t.Context(), []string{"gate"}, strings.NewReader(""), &out, &errb, getenv); code != 3 || !strings.Contains(errb.String(), "more than 4 KiB, the most an input may hold") {
		t.Errorf("action input: exit %d, stderr %q", code, errb.String())
	}
}
