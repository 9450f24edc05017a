package httpapi

import (
	"bytes"
	"context"
	"net/http"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

// overdueAfter is how long past its deadline a request runs before the
// server logs where it waits: the service answers within its deadline
// plus a fraction of a second (the database's CancelGrace, a locker's
// clean-up), so a request still running a second later waits on
// something that does not heed its context.
const overdueAfter = time.Second

// requestLabel is the pprof label that marks the goroutines serving a
// request, the handler's and those it starts, with the request's id.
const requestLabel = "request_id"

// labelRequest labels the calling goroutine, and those it starts from
// now on, with the request id id, and returns ctx carrying the label and
// a function that takes the label off again: the server's goroutine
// serves the connection's next request too.
func labelRequest(ctx context.Context, id string) (context.Context, func()) {
	ctx = pprof.WithLabels(ctx, pprof.Labels(requestLabel, id))
	pprof.SetGoroutineLabels(ctx)
	return ctx, func() { pprof.SetGoroutineLabels(context.Background()) }
}

// watchOverdue logs, if the request is still running overdueAfter past
// timeout, the stacks of the goroutines that serve it. Call the returned
// function when the request ends.
func (s *Server) watchOverdue(r *http.Request, id string, start time.Time, timeout time.Duration) (stop func() bool) {
	t := time.AfterFunc(timeout+overdueAfter, func() {
		s.log.Warn("request past its deadline", "method", r.Method, "path", r.URL.Path, "request_id", id,
			"running", time.Since(start).Round(time.Millisecond), "deadline", timeout, "stacks", requestStacks(id))
	})
	return t.Stop
}

// requestStacks returns the stacks of the goroutines labelled with request
// id id, from the goroutine profile (one record per distinct stack), or a
// note that there is none.
func requestStacks(id string) string {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		return "goroutine profile: " + err.Error()
	}
	if stacks := labelled(buf.String(), requestLabel, id); stacks != "" {
		return stacks
	}
	return "no goroutine of the request is running"
}

// labelled returns the records of a goroutine profile in its debug=1 text
// form (records apart by blank lines, each with a "# labels: {…}" line
// when its goroutines have labels, values quoted as by %q) whose
// goroutines carry the label key=value.
func labelled(profile, key, value string) string {
	want := strconv.Quote(key) + ":" + strconv.Quote(value)
	var out []string
	for rec := range strings.SplitSeq(profile, "\n\n") {
		for line := range strings.Lines(rec) {
			// A quoted key or value cannot hold an unescaped quote, so
			// want matches only the pair itself.
			if strings.HasPrefix(line, "# labels: {") && strings.Contains(line, want) {
				out = append(out, strings.TrimSpace(rec))
				break
			}
		}
	}
	return strings.Join(out, "\n\n")
}
