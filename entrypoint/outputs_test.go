package entrypoint

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/refdata"
)

// Output paths are checked before any input is read (issue 25 item 4): `--json DIR` used to
// print the whole report and then fail on "rename ./.DIR.123.tmp DIR: file exists". A
// directory, a parent that is a file and an unwritable place are exit 3 at once, naming the
// setting; the traces named here do not exist, so an output error shows it came first.
func TestOutputPathsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.txt")
	write(t, file, "x")
	missing := filepath.Join(dir, "none", "*.jsonl")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"json is a directory", []string{"--json", dir},
			"agentgate: --json: " + dir + " is a directory: name the file to write, as in " + filepath.Join(dir, "report.json") + "\n"},
		{"markdown under a file", []string{"--markdown", filepath.Join(file, "r.md")},
			"agentgate: --markdown: cannot write " + filepath.Join(file, "r.md") + ": " + file + " is not a directory\n"},
		{"junit is a directory", []string{"--junit", dir + string(filepath.Separator)},
			"agentgate: --junit: " + dir + string(filepath.Separator) + " is a directory: name the file to write, as in " + filepath.Join(dir, "report.xml") + "\n"},
		{"two outputs, one file", []string{"--json", filepath.Join(dir, "r"), "--markdown", filepath.Join(dir, "r")},
			"agentgate: --markdown: " + filepath.Join(dir, "r") + " is also the json output: give each output its own file\n"},
	}
	if runtime.GOOS == "linux" {
		cases = append(cases, struct {
			name string
			args []string
			want string
		}{"unwritable place", []string{"--json", "/proc/agentgate/report.json"},
			"agentgate: --json: cannot write /proc/agentgate/report.json: cannot create a file in /proc (no such file or directory)\n"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, "", append([]string{"gate", "--traces", missing}, c.args...)...)
			if code != 3 || stdout != "" || stderr != c.want {
				t.Errorf("exit %d, stdout %q\nstderr %q\n  want %q", code, stdout, stderr, c.want)
			}
		})
	}
	// the same from a config file names the file, the line, the column and the setting
	cfg := filepath.Join(dir, "agentgate.yml")
	write(t, cfg, "traces: "+missing+"\njson: "+dir+"\n")
	code, _, stderr := cli(t, "", "gate", "--config", cfg)
	want := "agentgate: " + cfg + ":2:7: json: " + dir + " is a directory: name the file to write, as in " + filepath.Join(dir, "report.json") + "\n"
	if code != 3 || stderr != want {
		t.Errorf("config: exit %d\nstderr %q\n  want %q", code, stderr, want)
	}
	// a missing parent folder is created, as before, when it can be: the report is written
	out := filepath.Join(dir, "new", "deeper", "report.json")
	code, _, stderr = cli(t, "", "gate", "--traces", filepath.Join("..", "fixtures", "pass", "traces.jsonl"), "--json", out)
	if b, err := os.ReadFile(out); code != 0 || err != nil || !strings.Contains(string(b), `"verdict"`) {
		t.Errorf("new folder: exit %d, %v, stderr %q", code, err, stderr)
	}
	// nothing was left behind by the checks
	names, _ := os.ReadDir(dir)
	var got []string
	for _, n := range names {
		got = append(got, n.Name())
	}
	if strings.Join(got, " ") != "agentgate.yml file.txt new" {
		t.Errorf("left in the folder: %q", got)
	}
}

// An unwritable folder is found before the inputs are read. Root can write to a 0555 folder
// (CI runs as root), so there the folder is /sys, where sysfs refuses a new file to root too.
func TestOutputUnwritableFolder(t *testing.T) {
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	if writable(ro) {
		ro = "/sys"
		if _, err := os.Stat(ro); err != nil || writable(ro) {
			if refdata.CI() {
				t.Fatalf("CI=true but this user can write to a 0555 folder and %s is not an unwritable folder here", ro)
			}
			t.Skip("this user can write to a 0555 folder (root), and there is no /sys to stand in")
		}
	}
	code, _, stderr := cli(t, "", "gate", "--traces", filepath.Join(dir, "none.jsonl"), "--json", filepath.Join(ro, "r.json"))
	want := "agentgate: --json: cannot write " + filepath.Join(ro, "r.json") + ": cannot create a file in " + ro + " (permission denied)\n"
	if code != 3 || !strings.HasPrefix(stderr, strings.TrimSuffix(want, "\n")) {
		t.Errorf("exit %d\nstderr %q\n  want %q", code, stderr, want)
	}
}

// writable reports whether this user can create a file in dir.
func writable(dir string) bool {
	f, err := os.CreateTemp(dir, "probe")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
}
