package entrypoint

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// writeReportFile writes a report atomically enough for CI: to a temporary file beside it,
// then renamed, so a reader never sees half a report.
//
// The temporary file is created fresh under a random name (os.CreateTemp: O_CREATE|O_EXCL), so
// nothing planted in the folder beforehand, such as a symlink at a name one could guess, is
// ever followed; the rename then replaces whatever was at path, a symlink included, without
// writing through it (docs/design.md#trust-boundaries "Files").
//
// The report is streamed into the temporary file rather than built in memory first: the JSON
// report of a large suite is tens of megabytes (56 MB for 1 GB of traces), and a buffer of it,
// grown by doubling, was the largest thing the gate held. The directory and the temporary file
// are created at the first byte written, so a report that fails before writing anything (a
// number JSON cannot hold) leaves nothing behind, as when it was built in memory; one that
// fails later leaves no temporary file.
func writeReportFile(path string, write func(io.Writer) error) (err error) {
	w := &lazyFile{path: path}
	defer func() {
		if err != nil {
			if w.f != nil {
				w.f.Close() // a second Close after a failed one does no harm
				os.Remove(w.f.Name())
			}
			err = fmt.Errorf("writing %s: %w", path, err)
		}
	}()
	if err := write(w); err != nil {
		return err
	}
	// open creates the file of an empty report, and returns the error of a failed write that
	// write did not report
	if err := w.open(); err != nil {
		return err
	}
	if err := w.f.Close(); err != nil {
		return err
	}
	return os.Rename(w.f.Name(), path)
}

// lazyFile is an io.Writer that creates its file (and the file's directory) at the first
// write. A failed write is sticky: every later write returns the same error.
type lazyFile struct {
	path string
	f    *os.File // the temporary file, once created
	err  error
}

// open creates the file, once.
func (w *lazyFile) open() error {
	if w.f != nil || w.err != nil {
		return w.err
	}
	if dir := filepath.Dir(w.path); dir != "." {
		if w.err = os.MkdirAll(dir, 0o755); w.err != nil {
			return w.err
		}
	}
	f, err := os.CreateTemp(filepath.Dir(w.path), "."+filepath.Base(w.path)+".*.tmp")
	if err != nil {
		w.err = err
		return err
	}
	// CreateTemp makes the file 0600; a report is meant to be read (by an artifact upload,
	// a later step running as another user), as it was before.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		w.err = err
		return err
	}
	w.f = f
	return nil
}

// Write writes p to the file, creating it first if need be.
func (w *lazyFile) Write(p []byte) (int, error) {
	if err := w.open(); err != nil {
		return 0, err
	}
	n, err := w.f.Write(p)
	if err != nil {
		w.err = err
	}
	return n, err
}
