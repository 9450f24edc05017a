package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/console"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/events"
	"github.com/stockade/stockade/httpapi"
	"github.com/stockade/stockade/lock"
	"github.com/stockade/stockade/lock/memlock"
	"github.com/stockade/stockade/postgres"
	"github.com/stockade/stockade/webhook"
)

// strategies are the values of -strategy.
var strategies = engine.Strategies()

// serveConfig is what serve's flags and environment say.
type serveConfig struct {
	addr            string
	store           storeSpec
	strategy        string
	maxBatch        int
	locker          lockerSpec
	lockTTL         time.Duration // of the lock strategy's leases
	sweepInterval   time.Duration
	admitInterval   time.Duration // of the waiting rooms' admissions
	defaultTTL      time.Duration
	maxHold         time.Duration // the longest a hold of seats may last
	requestTimeout  time.Duration
	shutdownTimeout time.Duration
	drainDelay      time.Duration // not ready, still serving, before the listener closes
	logLevel        slog.Level
	maxBodyBytes    int64
	corsOrigins     []string
	open            bool
	rateLimit       float64
	rateBurst       int
	eventRetention  time.Duration
	events          string   // the NATS URLs to relay the outbox to, or ""
	kafka           []string // or the Kafka brokers', HOST:PORT
	eventsWorkers   int      // commands the consumer applies at once
	eventsReplicas  int      // copies of each stream or topic serve creates
	eventsParts     int      // partitions of each Kafka topic serve creates
	paymentGrace    time.Duration
	webhookSecrets  [][]byte // of the payment webhook; none: it is off
	console         bool     // serve the operator console at /console/
	// Outbound webhooks: whether endpoints may be private addresses, how
	// long a delivery is retried, and how long one attempt may take.
	webhookPrivate  bool
	webhookRetryFor time.Duration
	webhookTimeout  time.Duration
}

func parseServe(args []string, getenv func(string) string, stdout, stderr io.Writer) (serveConfig, error) {
	var c serveConfig
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: stockade serve [flags]

Runs the HTTP API on the store, migrating its schema first, and expires
lapsed reservations in the background. SIGINT or SIGTERM stops it
gracefully: no new connections, in-flight requests finish (up to
-shutdown-timeout), then the sweeper, the locker and the store close.

Every /v1 request needs an API key (Authorization: Bearer <key>); make
one with "stockade keys create". -open lets requests without a key in,
as an admin, and is refused unless the address is a loopback one.

Each flag falls back to the environment variable named in its text.

flags:
`)
		fs.PrintDefaults()
	}
	env := &envFlags{fs: fs, getenv: getenv, help: stdout}
	addr := env.String("addr", "STOCKADE_ADDR", "127.0.0.1:8080", "listen `address`; :8080 listens on every interface")
	store := env.String("store", "STOCKADE_STORE", "sqlite:stockade.db", storeUsage)
	strategy := env.String("strategy", "STOCKADE_STRATEGY", engine.Atomic,
		"how reservations check and take stock: "+strings.Join(strategies, ", ")+
			"\n(a strategy the store cannot offer falls back, as the log line says)")
	maxBatch := env.Int("max-batch", "STOCKADE_MAX_BATCH", 512,
		"strategy batch: the most reservations, checkouts and confirms one transaction decides")
	locker := env.String("locker", "STOCKADE_LOCKER", "memory", lockerUsage)
	lockTTL := env.Duration("lock-ttl", "STOCKADE_LOCK_TTL", 10*time.Second,
		"strategy lock: the time-to-live of each SKU's or show's lease; a holder that stops (a paused or\ncut-off instance) keeps its keys no longer than this, plus the backend's margin")
	sweep := env.Duration("sweep-interval", "STOCKADE_SWEEP_INTERVAL", time.Second,
		"how often lapsed reservations and holds are expired and old idempotency records purged")
	admit := env.Duration("admit-interval", "STOCKADE_ADMIT_INTERVAL", time.Second/4,
		"how often the waiting rooms admit visitors, open when their time comes, and notice a sell-out")
	eventsURL := env.String("events", "STOCKADE_EVENTS", "",
		"relay the outbox's events to the broker at this `URL`, and consume commands from it: NATS JetStream\n(nats://HOST:PORT, or several servers of a cluster separated by commas), stream STOCKADE_EVENTS,\nsubjects stockade.events.<aggregate>.<type>; or Kafka (kafka://HOST:PORT,HOST:PORT…, brokers of one\ncluster), topics stockade.events, stockade.commands, stockade.deadletter, consumer group stockade;\nthe service serves while the broker is down")
	eventsWorkers := env.Int("events-workers", "STOCKADE_EVENTS_WORKERS", 128,
		"with -events: how many commands (payment outcomes, confirms, releases) the consumer applies at once;\nunder -strategy batch the outcomes that wait together are applied in one transaction")
	eventsReplicas := env.Int("events-replicas", "STOCKADE_EVENTS_REPLICAS", 1,
		"with -events: how many servers of a JetStream cluster keep a copy of each stream serve creates\n(events, commands, dead letters), or the replication factor of each Kafka topic it creates, 1 to 5;\nwith 3, one server may be down; a stream or topic that exists keeps its own")
	eventsParts := env.Int("events-partitions", "STOCKADE_EVENTS_PARTITIONS", 1,
		"with -events kafka://…: how many partitions each topic serve creates has, 1 to 10000; an aggregate's\nevents keep their order in one partition; a topic that exists keeps its own")
	retention := env.Duration("event-retention", "STOCKADE_EVENT_RETENTION", 7*24*time.Hour,
		"how long events stay in the outbox (GET /v1/events); the sweeper prunes older ones")
	ttl := env.Duration("default-ttl", "STOCKADE_DEFAULT_TTL", 15*time.Minute,
		"how long a reservation holds its stock, or a hold its seats, when the request gives no ttl_seconds")
	maxHold := env.Duration("max-hold-lifetime", "STOCKADE_MAX_HOLD_LIFETIME", 2*time.Hour,
		"the longest a hold of seats may last from its creation, extensions included")
	reqTimeout := env.Duration("request-timeout", "STOCKADE_REQUEST_TIMEOUT", 10*time.Second,
		"bound on each request and each batch transaction, lock waits and retries included;\npast it the answer is 503")
	shutdown := env.Duration("shutdown-timeout", "STOCKADE_SHUTDOWN_TIMEOUT", 15*time.Second,
		"how long in-flight requests may finish after SIGINT/SIGTERM")
	drain := env.Duration("drain-delay", "STOCKADE_DRAIN_DELAY", 0,
		"after SIGINT/SIGTERM, how long /readyz answers 503 while requests are still served, before\nthe listener closes: what a load balancer takes to notice (its check interval times the\nfailures it needs); 0 closes at once")
	maxBody := env.Int("max-body-bytes", "STOCKADE_MAX_BODY_BYTES", 1<<20,
		"largest request body accepted; a larger one is refused with 413")
	origins := env.String("cors-origins", "STOCKADE_CORS_ORIGINS", "",
		"comma-separated `origins` whose pages may call the API from a browser, such as\nhttps://shop.example; https://*.example allows its subdomains, * any origin")
	open := env.Bool("open", "STOCKADE_OPEN", false,
		"let requests without an API key in, as an admin; only on a loopback -addr, for trying things out")
	rateLimit := env.Float64("rate-limit", "STOCKADE_RATE_LIMIT", 0,
		"each API key's `requests` per second, unless the key has its own; over it, 429 with Retry-After;\n0 (or -1): no limit. A shop's back end serves all its customers with one key, so a limit\nper key is a limit on the shop: give one to the keys that need it (keys create -rate-limit)")
	rateBurst := env.Int("rate-burst", "STOCKADE_RATE_BURST", 0,
		"the `size` of the token bucket of a key at -rate-limit: how many requests it may make at once;\n0: twice -rate-limit (a key with a rate of its own gets twice its rate)")
	grace := env.Duration("payment-grace", "STOCKADE_PAYMENT_GRACE", 10*time.Minute,
		"how long a reservation or hold whose payment is in flight is kept past its expiry before the\npayment is marked stuck (it is kept after that too, until an outcome or a person settles it)")
	webhookSecrets := env.String("webhook-secret-file", "STOCKADE_WEBHOOK_SECRET_FILE", "",
		fmt.Sprintf("`file` of the payment webhook's shared secrets, one per line (two while one is rotated), each at least\n"+
			"%d bytes (openssl rand -hex 32 makes one); empty: POST /v1/payments/webhook is off", minSecretBytes))
	webhookPrivate := env.Bool("webhook-allow-private", "STOCKADE_WEBHOOK_ALLOW_PRIVATE", false,
		"let outbound webhook endpoints be loopback, private or link-local addresses (checked when one is\nregistered, and at every connection); without it, a key holder cannot make the service call its own network")
	webhookRetryFor := env.Duration("webhook-retry-for", "STOCKADE_WEBHOOK_RETRY_FOR", 72*time.Hour,
		"how long an outbound webhook delivery is retried (5xx, 408, 429, timeouts, no connection), with\nexponential backoff and jitter, before it fails; it can be redelivered by hand then")
	webhookTimeout := env.Duration("webhook-timeout", "STOCKADE_WEBHOOK_TIMEOUT", 10*time.Second,
		"how long one outbound webhook attempt may take, answer included; a delivery whose attempt was cut\nshort by a stop is made again after twice this")
	consoleOn := env.Bool("console", "STOCKADE_CONSOLE", true,
		"serve the operator console, a web page, at /console/ (it signs in with an admin or reader key)")
	level := env.String("log-level", "STOCKADE_LOG_LEVEL", "info",
		"`level` of the log: debug (one line per request), info, warn or error")
	if err := env.Parse(args); err != nil {
		return c, fmt.Errorf("serve: %w", err)
	}
	var err error
	if c.store, err = parseStore(*store); err != nil {
		return c, fmt.Errorf("serve: %w", err)
	}
	if c.locker, err = parseLocker(*locker); err != nil {
		return c, fmt.Errorf("serve: %w", err)
	}
	if c.locker.kind == "postgres" && c.store.kind != "postgres" {
		return c, fmt.Errorf("serve: -locker postgres takes its locks in the store's PostgreSQL database, and -store is %s", c.store)
	}
	if !slices.Contains(strategies, *strategy) {
		return c, fmt.Errorf("serve: unknown -strategy %q (want one of %s)", *strategy, strings.Join(strategies, ", "))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"sweep-interval", *sweep}, {"admit-interval", *admit}, {"event-retention", *retention}, {"default-ttl", *ttl}, {"max-hold-lifetime", *maxHold}, {"request-timeout", *reqTimeout}, {"shutdown-timeout", *shutdown}, {"payment-grace", *grace}, {"lock-ttl", *lockTTL},
		{"webhook-retry-for", *webhookRetryFor}, {"webhook-timeout", *webhookTimeout}} {
		if d.v <= 0 {
			return c, fmt.Errorf("serve: -%s must be positive, got %v", d.name, d.v)
		}
	}
	if *maxBatch < 1 || *maxBatch > 100_000 {
		return c, fmt.Errorf("serve: -max-batch must be between 1 and 100000, got %d", *maxBatch)
	}
	if *maxBody < minBodyBytes || *maxBody > maxBodyBytes {
		return c, fmt.Errorf("serve: -max-body-bytes must be between %d and %d, got %d", minBodyBytes, maxBodyBytes, *maxBody)
	}
	if c.corsOrigins, err = parseOrigins(*origins); err != nil {
		return c, fmt.Errorf("serve: -cors-origins: %w", err)
	}
	c.maxBodyBytes = int64(*maxBody)
	c.console = *consoleOn
	if *rateLimit != -1 && !(*rateLimit >= 0 && *rateLimit <= stockade.MaxRateLimit) {
		return c, fmt.Errorf("serve: -rate-limit must be between 0 and %g requests per second (0 or -1: no limit); got %g", float64(stockade.MaxRateLimit), *rateLimit)
	}
	if *rateBurst < 0 || *rateBurst > 1_000_000 {
		return c, fmt.Errorf("serve: -rate-burst must be between 0 and 1000000, got %d", *rateBurst)
	}
	c.open, c.rateLimit, c.rateBurst, c.eventRetention = *open, *rateLimit, *rateBurst, *retention
	if *eventsURL != "" {
		nats, kafka, err := parseEvents(*eventsURL)
		if err != nil {
			return c, err
		}
		c.events, c.kafka = nats, kafka
	}
	if *eventsWorkers < 1 || *eventsWorkers > 10_000 {
		return c, fmt.Errorf("serve: -events-workers must be between 1 and 10000, got %d", *eventsWorkers)
	}
	c.eventsWorkers = *eventsWorkers
	if *eventsReplicas < 1 || *eventsReplicas > 5 {
		return c, fmt.Errorf("serve: -events-replicas must be between 1 and 5, got %d", *eventsReplicas)
	}
	c.eventsReplicas = *eventsReplicas
	if *eventsParts < 1 || *eventsParts > 10_000 {
		return c, fmt.Errorf("serve: -events-partitions must be between 1 and 10000, got %d", *eventsParts)
	}
	c.eventsParts = *eventsParts
	if err := c.logLevel.UnmarshalText([]byte(*level)); err != nil {
		return c, fmt.Errorf("serve: -log-level %q: want debug, info, warn or error", *level)
	}
	c.addr, c.strategy, c.maxBatch = *addr, *strategy, *maxBatch
	c.sweepInterval, c.defaultTTL, c.requestTimeout, c.shutdownTimeout = *sweep, *ttl, *reqTimeout, *shutdown
	c.drainDelay = *drain
	c.admitInterval = *admit
	if c.drainDelay < 0 {
		return c, fmt.Errorf("serve: -drain-delay %s: must not be negative", c.drainDelay)
	}
	c.lockTTL = *lockTTL
	c.maxHold, c.paymentGrace = *maxHold, *grace
	c.webhookPrivate, c.webhookRetryFor, c.webhookTimeout = *webhookPrivate, *webhookRetryFor, *webhookTimeout
	if *webhookSecrets != "" {
		if c.webhookSecrets, err = readSecrets(*webhookSecrets); err != nil {
			return c, fmt.Errorf("serve: -webhook-secret-file: %w", err)
		}
	}
	return c, nil
}

// parseEvents reads -events: the servers of one broker, separated by
// commas. The first one's scheme chooses the broker, nats:// (or tls://)
// for JetStream, kafka:// for Kafka, and a server without one is of the
// same broker (HOST:PORT alone first meaning nats://, as nats.Connect
// takes it). It returns the list for nats.Connect, or the Kafka brokers'
// HOST:PORT, and refuses a list that mixes the two.
func parseEvents(list string) (natsURLs string, kafka []string, err error) {
	broker := ""
	for s := range strings.SplitSeq(list, ",") {
		s = strings.TrimSpace(s)
		scheme, _, ok := strings.Cut(s, "://")
		switch {
		case !ok && broker == "kafka":
			s, scheme = "kafka://"+s, "kafka"
		case !ok:
			s, scheme = "nats://"+s, "nats"
		}
		kind := "nats"
		if scheme == "kafka" {
			kind = "kafka"
		}
		if broker != "" && kind != broker {
			return "", nil, fmt.Errorf("serve: -events %q: servers of two brokers; want nats:// servers or kafka:// brokers, not both", redactList(list))
		}
		broker = kind
		u, err := url.Parse(s)
		switch {
		case kind == "nats" && (err != nil || (u.Scheme != "nats" && u.Scheme != "tls") || u.Host == "" || u.Port() == ""):
			return "", nil, fmt.Errorf("serve: -events %q: want nats://HOST:PORT, or several of them separated by commas", redactList(list))
		case kind == "kafka" && (err != nil || u.Hostname() == "" || !validPort(u.Port()) || u.User != nil ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != ""):
			return "", nil, fmt.Errorf("serve: -events %q: want kafka://HOST:PORT, or several brokers separated by commas (kafka://HOST:PORT,HOST:PORT)", redactList(list))
		case kind == "kafka":
			kafka = append(kafka, u.Host)
		}
	}
	if broker == "kafka" {
		return "", kafka, nil
	}
	return list, nil, nil
}

// validPort reports whether p is a port number, 1 to 65535.
func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}

// minSecretBytes is the shortest webhook secret accepted: 128 bits of a
// random secret written as hex.
const minSecretBytes = 32

// readSecrets reads a file of secrets, one per line; blank lines and
// lines that start with # are skipped. It refuses a file with none, or
// with a secret shorter than minSecretBytes.
func readSecrets(path string) ([][]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var secrets [][]byte
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if len(line) < minSecretBytes {
			return nil, fmt.Errorf("%s:%d: a secret of %d bytes; want at least %d (such as 32 random bytes in hex: openssl rand -hex 32)", path, i+1, len(line), minSecretBytes)
		}
		secrets = append(secrets, []byte(line))
	}
	if len(secrets) == 0 {
		return nil, fmt.Errorf("%s holds no secret", path)
	}
	return secrets, nil
}

// The bounds of -max-body-bytes: a reservation of the most lines fits in
// the least, and the most is far beyond any request of the API.
const (
	minBodyBytes = 16 << 10
	maxBodyBytes = 64 << 20
)

// parseOrigins reads -cors-origins: "*", or origins scheme://host[:port]
// with http or https, the host perhaps starting with "*." for its
// subdomains; no path, query or user.
func parseOrigins(list string) ([]string, error) {
	origins := splitList(list)
	for _, o := range origins {
		if o == "*" {
			if len(origins) > 1 {
				return nil, errors.New(`"*" allows every origin; give it alone`)
			}
			continue
		}
		u, err := url.Parse(strings.Replace(o, "://*.", "://wildcard.", 1))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return nil, fmt.Errorf("%q: want an origin such as https://shop.example or https://*.example", o)
		}
	}
	return origins, nil
}

func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	c, err := parseServe(args, getenv, stdout, stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: c.logLevel}))

	// An instance that stops mid-transaction (paused, cut off) holds its
	// rows no longer than it holds its keys under the lock strategy: the
	// others sell again within the lease's TTL.
	spec := c.store
	if c.strategy == engine.Lock {
		spec.idleInTransaction = min(c.lockTTL, postgres.DefaultIdleInTransaction)
	}
	st, err := openStore(ctx, spec, false)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return fmt.Errorf("serve: %w", err)
	}

	metrics := httpapi.NewRegistry()
	var locker lock.Locker
	var inspector lock.Inspector // GET /v1/locks: the locker's keys, if it can show them
	lockerName := "none (strategy " + c.strategy + " takes no locks)"
	ready := []httpapi.Pinger{st} // /readyz: the store, and the locker's servers if any
	if c.strategy == engine.Lock {
		l, err := startLocker(ctx, c, st, log)
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		defer l.close()
		locker, lockerName = observeLocker(l.Locker, metrics), c.locker.String()
		inspector, _ = l.Locker.(lock.Inspector) // redlock's cannot
		ready = append(ready, l)
	}
	// The engine's Timeout bounds what no request's context does, a batch
	// transaction: it gets the request timeout too, so that a batch held
	// up by a silent database is bounded as a request is.
	eng, err := engine.New(st, &engine.Options{
		Strategy:        c.strategy,
		Locker:          locker,
		LockTTL:         c.lockTTL,
		MaxBatch:        c.maxBatch,
		DefaultTTL:      c.defaultTTL,
		MaxHoldLifetime: c.maxHold,
		EventRetention:  c.eventRetention,
		PaymentGrace:    c.paymentGrace,
		Timeout:         c.requestTimeout,
		WebhookPrivate:  c.webhookPrivate,
		Logger:          log,
		Observer:        engineObserver(metrics),
	})
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}

	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer ln.Close()
	if c.open {
		if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
			return fmt.Errorf("serve: -open lets anyone who reaches %s act as an admin; it is allowed on a loopback address only, such as 127.0.0.1:8080", ln.Addr())
		}
		log.Warn("open mode: requests without an API key act as an admin")
	} else if page, err := eng.Keys(stockade.WithActor(ctx, stockade.System), stockade.KeyQuery{Limit: 1}); err != nil {
		return fmt.Errorf("serve: %w", err)
	} else if len(page.Keys) == 0 {
		log.Warn("no API keys yet: every /v1 request is refused until one is made with `stockade keys create -role admin -name NAME`" +
			" (same -store), or the server runs with -open on loopback")
	}
	api := httpapi.NewServer(eng, log, &httpapi.Options{
		RequestTimeout: c.requestTimeout,
		MaxBodyBytes:   c.maxBodyBytes,
		AllowedOrigins: c.corsOrigins,
		Registry:       metrics,
		Locks:          inspector,
		WebhookSecrets: c.webhookSecrets,
		Open:           c.open,
		RateLimit:      c.rateLimit,
		RateBurst:      c.rateBurst,
	}, ready...)
	srv := &http.Server{
		Handler:           withConsole(api, c.console),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      c.requestTimeout + 30*time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	srv.RegisterOnShutdown(api.CloseStreams) // or Shutdown waits for every event stream's client
	attrs := []any{"addr", ln.Addr().String(), "store", c.store.String(), "strategy", eng.Strategy(), "locker", lockerName}
	if c.strategy == engine.Batch {
		attrs = append(attrs, "max_batch", c.maxBatch)
	}
	log.Info("listening", attrs...)

	sweepCtx, stopSweep := context.WithCancel(context.WithoutCancel(ctx))
	var sweeper sync.WaitGroup
	sweeper.Go(func() { eng.RunSweeper(sweepCtx, c.sweepInterval) })
	sweeper.Go(func() { eng.RunAdmissions(sweepCtx, c.admitInterval) })
	hooks := webhook.New(eng, &webhook.Options{Timeout: c.webhookTimeout, RetryFor: c.webhookRetryFor,
		AllowPrivate: c.webhookPrivate, Wake: eng.Written, Logger: log, Observer: webhookObserver(metrics)})
	sweeper.Go(func() { hooks.Run(sweepCtx) })
	if c.events != "" {
		// A broker that is down, at the start or later, stops nothing:
		// the connection keeps trying, and the relay's events wait in the
		// outbox meanwhile.
		nc, err := nats.Connect(c.events, nats.Name("stockade"), nats.RetryOnFailedConnect(true),
			nats.MaxReconnects(-1), nats.ReconnectWait(time.Second))
		if err != nil {
			stopSweep()
			sweeper.Wait()
			return fmt.Errorf("serve: -events %s: %w", redactList(c.events), err)
		}
		defer nc.Close()
		js, err := jetstream.New(nc)
		if err != nil {
			stopSweep()
			sweeper.Wait()
			return fmt.Errorf("serve: -events %s: %w", redactList(c.events), err)
		}
		relay := events.New(st, js, &events.Options{Replicas: c.eventsReplicas, Wake: eng.Written, Logger: log})
		consumer := events.NewConsumer(eng, js, &events.ConsumerOptions{Replicas: c.eventsReplicas, Workers: c.eventsWorkers, Logger: log})
		relayMetrics(metrics, relay, consumer)
		sweeper.Go(func() { relay.Run(sweepCtx) })
		sweeper.Go(func() { consumer.Run(sweepCtx) })
		log.Info("relaying events and consuming commands", "broker", redactList(c.events),
			"events", "STOCKADE_EVENTS", "commands", "STOCKADE_COMMANDS")
	}
	if len(c.kafka) > 0 {
		// The client connects when it is first used, and keeps trying:
		// brokers that are down stop nothing, as for JetStream. Its
		// producer is idempotent and waits for all in-sync replicas,
		// franz-go's defaults.
		brokers := []kgo.Opt{kgo.SeedBrokers(c.kafka...), kgo.ClientID("stockade")}
		cl, err := kgo.NewClient(brokers...)
		if err != nil {
			stopSweep()
			sweeper.Wait()
			return fmt.Errorf("serve: -events kafka://%s: %w", strings.Join(c.kafka, ","), err)
		}
		defer cl.Close()
		relay := events.NewKafka(st, cl, &events.KafkaOptions{Partitions: c.eventsParts, Replicas: c.eventsReplicas,
			Wake: eng.Written, Logger: log})
		consumer := events.NewKafkaConsumer(eng, brokers, &events.KafkaConsumerOptions{Partitions: c.eventsParts,
			Replicas: c.eventsReplicas, Workers: c.eventsWorkers, Logger: log})
		relayMetrics(metrics, relay, consumer)
		sweeper.Go(func() { relay.Run(sweepCtx) })
		sweeper.Go(func() { consumer.Run(sweepCtx) })
		log.Info("relaying events and consuming commands", "broker", "kafka://"+strings.Join(c.kafka, ","),
			"events", "stockade.events", "commands", "stockade.commands", "group", "stockade")
	}
	defer func() {
		stopSweep()
		sweeper.Wait()
	}()

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	// Not ready first, still serving, so that a load balancer moves
	// away before the listener closes under it.
	api.Drain()
	if c.drainDelay > 0 {
		log.Info("draining", "delay", c.drainDelay)
		select {
		case err := <-errc:
			return fmt.Errorf("serve: %w", err)
		case <-time.After(c.drainDelay):
		}
	}
	log.Info("shutting down", "timeout", c.shutdownTimeout)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	stopSweep()
	sweeper.Wait()
	log.Info("stopped")
	return nil
}

// startLocker opens the locker of the lock strategy. An in-memory locker
// starts its fencing tokens above every token the store has seen, or the
// levels would refuse its writes as stale after a restart.
func startLocker(ctx context.Context, c serveConfig, st migratingStore, log *slog.Logger) (openedLocker, error) {
	if c.locker.kind == "memory" {
		top, err := engine.MaxFence(ctx, st)
		if err != nil {
			return openedLocker{}, err
		}
		return openedLocker{Locker: memlock.New(&memlock.Options{FirstToken: top + 1}), close: func() error { return nil }}, nil
	}
	return openLocker(ctx, c.locker, c.store, log)
}

// withConsole returns api, with the operator console at console.Path
// beside it when on: the console's page at /console/, and / sends a
// browser there.
func withConsole(api http.Handler, on bool) http.Handler {
	if !on {
		return api
	}
	mux := http.NewServeMux()
	mux.Handle(console.Path, console.Handler())
	mux.Handle("GET /{$}", http.RedirectHandler(console.Path, http.StatusFound))
	mux.Handle("/", api)
	return mux
}
