package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/stockade/stockade"
)

// Service is what the sender needs of the engine (engine.Engine is one):
// the deliveries' state, which it keeps; the sender makes the calls.
type Service interface {
	FanOutWebhooks(ctx context.Context, f stockade.WebhookFanOut) (int, error)
	WebhookEndpoints(ctx context.Context, q stockade.WebhookEndpointQuery) (stockade.WebhookEndpointPage, error)
	ClaimWebhookDeliveries(ctx context.Context, q stockade.WebhookClaim) (stockade.WebhookEndpoint, []stockade.WebhookDelivery, error)
	RecordWebhookAttempt(ctx context.Context, d stockade.WebhookDelivery, a stockade.WebhookAttempt) (bool, error)
}

// Options configures a Sender. A nil *Options means all defaults.
type Options struct {
	// Timeout bounds one attempt: connecting, sending, and the answer's
	// headers and body. An attempt that runs out of time is retried.
	// Default: 10s.
	Timeout time.Duration

	// RetryFor is how long after its event a delivery is still retried;
	// after it, a delivery that has not succeeded fails.
	// Default: 72h.
	RetryFor time.Duration

	// MinBackoff and MaxBackoff bound the wait before the next attempt:
	// MinBackoff after the first, doubling with each attempt up to
	// MaxBackoff, each wait drawn between half of it and all of it (so
	// that the deliveries of a receiver that came back do not all arrive
	// at once). A Retry-After in the answer waits longer, up to
	// MaxBackoff.
	// Default: 10s and 1h.
	MinBackoff, MaxBackoff time.Duration

	// Concurrency is how many deliveries to one endpoint are in flight at
	// once, each of a different aggregate. Endpoints never wait for each
	// other.
	// Default: 4.
	Concurrency int

	// Poll is how often the sender looks for events, endpoints and
	// deliveries that nothing announced: those of other instances, and
	// retries coming due.
	// Default: 1s.
	Poll time.Duration

	// Batch is the most events one turn makes into deliveries.
	// Default: 512.
	Batch int

	// MaxAnswerBytes is how much of an answer's body is read; the rest is
	// left unread.
	// Default: 64 KiB.
	MaxAnswerBytes int64

	// AllowPrivate lets deliveries connect to loopback, private and
	// link-local addresses (stockade.WebhookAddressAllowed), for a
	// receiver on the service's own network. Without it, every address a
	// URL's host resolves to is checked as the connection is made, so
	// that a name cannot be pointed at one after it was registered.
	// Default: false.
	AllowPrivate bool

	// Wake, if set, returns a channel that closes when events may have
	// been written (engine.Engine.Written): the sender then looks at once.
	Wake func() <-chan struct{}

	// Observer, if set, is told of each attempt once its outcome is
	// recorded, for metrics. It must be quick and safe for concurrent use.
	Observer func(Report)

	// Logger receives failed attempts (at Info) and the sender's own
	// failures (at Warn).
	// Default: slog.Default().
	Logger *slog.Logger
}

// Report describes one attempt, for Options.Observer.
type Report struct {
	EndpointID string
	Result     stockade.WebhookResult
	Code       int
	Duration   time.Duration
}

func (o *Options) withDefaults() Options {
	var out Options
	if o != nil {
		out = *o
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&out.Timeout, 10*time.Second)
	def(&out.RetryFor, 72*time.Hour)
	def(&out.MinBackoff, 10*time.Second)
	def(&out.MaxBackoff, time.Hour)
	def(&out.Poll, time.Second)
	out.MaxBackoff = max(out.MaxBackoff, out.MinBackoff)
	if out.Concurrency <= 0 {
		out.Concurrency = 4
	}
	if out.Batch <= 0 {
		out.Batch = 512
	}
	if out.MaxAnswerBytes <= 0 {
		out.MaxAnswerBytes = 64 << 10
	}
	if out.Logger == nil {
		out.Logger = slog.Default()
	}
	return out
}

// Sender makes the outbox's events into deliveries, and delivers them.
type Sender struct {
	svc    Service
	opts   Options
	client *http.Client
	// made is closed, and replaced, when a turn has made deliveries: the
	// endpoints' workers look at once.
	mu   sync.Mutex
	made chan struct{}
	// endpoints is whether the last listing found any endpoint: without
	// one, turns wait for Poll rather than for every commit, so that a
	// service with no endpoint spends a transaction a Poll on them.
	endpoints atomic.Bool
}

// New returns a sender of svc's deliveries.
func New(svc Service, opts *Options) *Sender {
	s := &Sender{svc: svc, opts: opts.withDefaults(), made: make(chan struct{})}
	dialer := &net.Dialer{Timeout: s.opts.Timeout}
	if !s.opts.AllowPrivate {
		dialer.Control = refusePrivate
	}
	s.client = &http.Client{
		Transport: &http.Transport{
			// No proxy: the address check is on the connection, and a
			// proxy's would be the one checked.
			DialContext:         dialer.DialContext,
			TLSHandshakeTimeout: s.opts.Timeout,
			MaxIdleConnsPerHost: s.opts.Concurrency,
			IdleConnTimeout:     90 * time.Second,
			ForceAttemptHTTP2:   true,
		},
		Timeout: s.opts.Timeout,
		// A redirect is an answer like any other: not followed, so that a
		// receiver cannot send the delivery on to an address the check
		// did not see, and the attempt is refused (3xx is not 2xx).
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return s
}

// errPrivate refuses a connection to an address that webhooks may not
// call.
var errPrivate = errors.New("webhook: refused to connect to a loopback, private or link-local address (serve -webhook-allow-private allows it)")

// refusePrivate is the dialer's check of each address it connects to.
func refusePrivate(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !stockade.WebhookAddressAllowed(ap.Addr()) {
		return fmt.Errorf("%w: %s", errPrivate, address)
	}
	return nil
}

// Run makes deliveries and delivers them until ctx ends, then returns
// nil once every attempt in flight has stopped. An attempt cut short is
// not recorded: its claim runs out, and it is made again, with the same
// delivery id. Failures of the service (the database down) are logged and
// tried again after a backoff that grows to 5 s.
func (s *Sender) Run(ctx context.Context) error {
	ctx = stockade.WithActor(ctx, stockade.System)
	var wg sync.WaitGroup
	wg.Go(func() { s.fanOut(ctx) })
	workers := map[string]bool{}
	done := make(chan string)
	var wake <-chan struct{}
	for ctx.Err() == nil {
		if s.opts.Wake != nil {
			wake = s.opts.Wake()
		}
		made := s.madeChan()
		if err := s.startWorkers(ctx, &wg, workers, done); err != nil && ctx.Err() == nil {
			s.opts.Logger.Warn("webhook: listing endpoints failed", "err", err)
		}
		t := time.NewTimer(s.opts.Poll)
		for waiting := true; waiting; {
			select {
			case id := <-done:
				delete(workers, id)
				continue
			case <-made:
			case <-wake:
			case <-t.C:
			case <-ctx.Done():
			}
			waiting = false
		}
		t.Stop()
	}
	go func() {
		for range done { // let the workers end
		}
	}()
	wg.Wait()
	close(done)
	return nil
}

// startWorkers starts a worker for each endpoint that has none.
func (s *Sender) startWorkers(ctx context.Context, wg *sync.WaitGroup, workers map[string]bool, done chan<- string) error {
	q := stockade.WebhookEndpointQuery{Limit: stockade.MaxWebhookLimit}
	for {
		page, err := s.svc.WebhookEndpoints(ctx, q)
		if err != nil {
			return err
		}
		if q.Cursor == "" {
			s.endpoints.Store(len(page.Endpoints) > 0)
		}
		for _, ep := range page.Endpoints {
			if workers[ep.ID] {
				continue
			}
			workers[ep.ID] = true
			wg.Go(func() {
				s.work(ctx, ep.ID)
				done <- ep.ID
			})
		}
		if page.Next == "" {
			return nil
		}
		q.Cursor = page.Next
	}
}

func (s *Sender) madeChan() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.made
}

func (s *Sender) announce() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.made)
	s.made = make(chan struct{})
}

// fanOut takes turns of the webhooks' relay until ctx ends.
func (s *Sender) fanOut(ctx context.Context) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		var wake <-chan struct{}
		if s.opts.Wake != nil && s.endpoints.Load() {
			wake = s.opts.Wake() // before the turn: a commit after it wakes us
		}
		n, err := s.svc.FanOutWebhooks(ctx, stockade.WebhookFanOut{Limit: s.opts.Batch, RetryFor: s.opts.RetryFor})
		switch {
		case err != nil && ctx.Err() == nil:
			s.opts.Logger.Warn("webhook: turn failed; the events wait in the outbox", "err", err, "retry_in", backoff)
			sleep(ctx, backoff/2+rand.N(backoff/2+1), nil)
			backoff = min(2*backoff, 5*time.Second)
			continue
		case n > 0:
			s.announce()
		}
		backoff = 100 * time.Millisecond
		if n < s.opts.Batch {
			sleep(ctx, s.opts.Poll, wake)
		}
	}
}

// work delivers the deliveries of endpoint id until ctx ends or the
// endpoint is deleted.
func (s *Sender) work(ctx context.Context, id string) {
	backoff := 100 * time.Millisecond
	lease := 2 * s.opts.Timeout
	for ctx.Err() == nil {
		made := s.madeChan()
		ep, ds, err := s.svc.ClaimWebhookDeliveries(ctx, stockade.WebhookClaim{EndpointID: id, Limit: s.opts.Concurrency, Lease: lease})
		switch {
		case stockade.ErrorCode(err) == stockade.ENotFound:
			return
		case err != nil:
			if ctx.Err() == nil {
				s.opts.Logger.Warn("webhook: claiming deliveries failed", "endpoint", id, "err", err, "retry_in", backoff)
			}
			sleep(ctx, backoff/2+rand.N(backoff/2+1), nil)
			backoff = min(2*backoff, 5*time.Second)
			continue
		}
		backoff = 100 * time.Millisecond
		if len(ds) == 0 {
			sleep(ctx, s.opts.Poll, made)
			continue
		}
		var wg sync.WaitGroup
		for _, d := range ds {
			wg.Go(func() { s.deliver(ctx, ep, d) })
		}
		wg.Wait()
	}
}

// deliver makes one attempt at d and records its outcome, unless ctx
// ended first.
func (s *Sender) deliver(ctx context.Context, ep stockade.WebhookEndpoint, d stockade.WebhookDelivery) {
	start := time.Now()
	a := s.attempt(ctx, ep, d)
	if ctx.Err() != nil {
		return // the claim runs out, and the delivery is made again
	}
	if a.Result != stockade.WebhookDelivered {
		s.opts.Logger.Info("webhook: attempt failed", "endpoint", ep.ID, "delivery", d.ID, "attempt", d.Attempts,
			"code", a.Code, "err", a.Error)
	}
	if _, err := s.svc.RecordWebhookAttempt(ctx, d, a); err != nil {
		// Its claim runs out, and it is made again.
		s.opts.Logger.Warn("webhook: recording an attempt failed", "endpoint", ep.ID, "delivery", d.ID, "err", err)
		return
	}
	if s.opts.Observer != nil {
		s.opts.Observer(Report{EndpointID: ep.ID, Result: a.Result, Code: a.Code, Duration: time.Since(start)})
	}
}

// Headers of a delivery, beside Stockade-Signature.
const (
	// HeaderDelivery is the delivery's id, the same on every attempt:
	// a receiver drops a second delivery by it.
	HeaderDelivery = "Stockade-Delivery"
	// HeaderEventID and HeaderEventType name the event it carries.
	HeaderEventID   = "Stockade-Event-Id"
	HeaderEventType = "Stockade-Event-Type"
	// HeaderAttempt counts the attempts, 1 for the first.
	HeaderAttempt = "Stockade-Attempt"
	// HeaderSignature signs the body (stockade.SignWebhook).
	HeaderSignature = "Stockade-Signature"
)

// attempt posts d to ep and judges the answer.
func (s *Sender) attempt(ctx context.Context, ep stockade.WebhookEndpoint, d stockade.WebhookDelivery) stockade.WebhookAttempt {
	now := time.Now()
	retry := func(code int, err string, after time.Duration) stockade.WebhookAttempt {
		wait := s.backoff(d.Attempts)
		if after > wait {
			wait = min(after, s.opts.MaxBackoff)
		}
		return stockade.WebhookAttempt{Result: stockade.WebhookRetry, Code: code, Error: err, RetryAt: now.Add(wait)}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(d.Body))
	if err != nil {
		return stockade.WebhookAttempt{Result: stockade.WebhookRefused, Error: "the endpoint's URL: " + err.Error()}
	}
	secrets := ep.Secrets(now)
	keys := make([][]byte, len(secrets))
	for i, secret := range secrets {
		keys[i] = []byte(secret)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "stockade-webhooks/1")
	req.Header.Set(HeaderSignature, stockade.SignWebhook(d.Body, now, keys...))
	req.Header.Set(HeaderDelivery, d.ID)
	req.Header.Set(HeaderEventID, d.EventID)
	req.Header.Set(HeaderEventType, d.EventType)
	req.Header.Set(HeaderAttempt, strconv.Itoa(d.Attempts))
	resp, err := s.client.Do(req)
	if err != nil {
		return retry(0, describe(err, s.opts.Timeout), 0)
	}
	_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, s.opts.MaxAnswerBytes))
	resp.Body.Close()
	code := resp.StatusCode
	switch {
	case code >= 200 && code < 300:
		if err != nil { // the receiver said yes: its body is no concern of ours
			s.opts.Logger.Debug("webhook: reading an answer failed", "delivery", d.ID, "err", err)
		}
		return stockade.WebhookAttempt{Result: stockade.WebhookDelivered, Code: code}
	case code == http.StatusGone:
		return stockade.WebhookAttempt{Result: stockade.WebhookGone, Code: code,
			Error: "the receiver answered 410 Gone: the endpoint is disabled"}
	case code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500:
		return retry(code, "the receiver answered "+resp.Status, retryAfter(resp.Header.Get("Retry-After"), now))
	case code >= 300 && code < 400:
		return stockade.WebhookAttempt{Result: stockade.WebhookRefused, Code: code,
			Error: "the receiver answered " + resp.Status + ": redirects are not followed; register the URL it names"}
	}
	return stockade.WebhookAttempt{Result: stockade.WebhookRefused, Code: code,
		Error: "the receiver answered " + resp.Status + ", which trying again would not change; redeliver by hand once mended"}
}

// backoff is the wait after the attempt-th attempt failed.
func (s *Sender) backoff(attempt int) time.Duration {
	d := s.opts.MinBackoff
	for i := 1; i < attempt && d < s.opts.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, s.opts.MaxBackoff)
	return d/2 + rand.N(d/2+1)
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date; 0 if
// there is none or it does not parse.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil && secs > 0 {
		return time.Duration(secs) * time.Second
	}
	if at, err := http.ParseTime(v); err == nil {
		return at.Sub(now)
	}
	return 0
}

// describe says why a call got no answer.
func describe(err error, timeout time.Duration) string {
	if errors.Is(err, errPrivate) {
		return errPrivate.Error()
	}
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		return fmt.Sprintf("no answer within %s: %v", timeout, err)
	}
	return "no answer: " + err.Error()
}

// sleep waits for d, wake, or the end of ctx.
func sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-wake:
	case <-ctx.Done():
	}
}
