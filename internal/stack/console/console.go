// Package console copies what a run prints to the log store as well: every
// line written to stdout or stderr becomes an entry with the run's labels,
// so that the log tells the run as the terminal did (its warnings, crossed
// thresholds, handleSummary errors, clean-up, where its results went, the
// verdict). The terminal still gets every byte, at once.
package console

import (
	"bufio"
	"io"
	"os"
	"regexp"
	"sync"

	"github.com/imbench/imbench/internal/lokipush"
)

// Source is the label the copied lines carry (source="console"), so that
// a query for the run's own warnings can leave out what the terminal
// already showed.
const Source = "console"

// A progress line ("imbench: 01:05 sending · …") is news, not a warning,
// although it goes to stderr as k6's does.
var progress = regexp.MustCompile(`^imbench: \d+:\d\d `)

// Tee holds stdout and stderr while the run goes.
type Tee struct {
	push        *lokipush.Pusher
	out, err    *os.File // the real ones
	tty         bool
	wg          sync.WaitGroup
	wOut, wErr  *os.File
	restoreOnce sync.Once
	closeOnce   sync.Once
}

// Start copies the process's stdout (level INFO) and stderr (WARN, a
// progress line INFO) to the log store at push, labelled with labels and
// source="console", until Stop. With push empty it does nothing.
func Start(push string, labels map[string]string) (*Tee, error) {
	t := &Tee{out: os.Stdout, err: os.Stderr, tty: isTerminal(os.Stderr)}
	if push == "" {
		return t, nil
	}
	l := map[string]string{"source": Source}
	for k, v := range labels {
		l[k] = v
	}
	rOut, wOut, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	rErr, wErr, err := os.Pipe()
	if err != nil {
		rOut.Close()
		wOut.Close()
		return nil, err
	}
	t.push, t.wOut, t.wErr = lokipush.New(push, l), wOut, wErr
	t.wg.Add(2)
	go t.copy(rOut, t.out, func(string) string { return "INFO" })
	go t.copy(rErr, t.err, func(line string) string {
		if progress.MatchString(line) {
			return "INFO"
		}
		return "WARN"
	})
	os.Stdout, os.Stderr = wOut, wErr
	return t, nil
}

// StderrIsTerminal says whether the real stderr is a terminal (the pipe
// that stands in for it is not).
func (t *Tee) StderrIsTerminal() bool { return t.tty }

// Last prints the run's last line on stdout, after everything printed
// before it, and logs it at level: a line whose level is known better
// than its stream says (the verdict). Then it pushes what is queued.
func (t *Tee) Last(level, line string) {
	t.release()
	io.WriteString(t.out, line+"\n")
	if t.push != nil {
		t.push.Line(level, line)
	}
	t.Stop()
}

// Stop gives stdout and stderr back and pushes what is queued.
func (t *Tee) Stop() {
	if t.push == nil {
		return
	}
	t.release()
	t.closeOnce.Do(t.push.Close)
}

// release gives stdout and stderr back once what went through the pipes
// is out.
func (t *Tee) release() {
	if t.push == nil {
		return
	}
	t.restoreOnce.Do(func() {
		os.Stdout, os.Stderr = t.out, t.err
		t.wOut.Close()
		t.wErr.Close()
		t.wg.Wait()
	})
}

func (t *Tee) copy(r *os.File, to *os.File, level func(string) string) {
	defer t.wg.Done()
	defer r.Close()
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			to.WriteString(line)
			if text := trimEOL(line); text != "" {
				t.push.Line(level(text), text)
			}
		}
		if err != nil {
			return
		}
	}
}

func trimEOL(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
