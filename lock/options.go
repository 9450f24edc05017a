package lock

import (
	"fmt"
	"time"
)

// DefaultTTL is the lease time-to-live when no WithTTL option is given.
const DefaultTTL = 10 * time.Second

// Option configures one Acquire, TryAcquire or AcquireAll call.
type Option func(*Config)

// Config is the resolved set of options for one call. Backends obtain it
// with NewConfig; users set it through the With… options.
type Config struct {
	// TTL is how long the lease lives without a refresh.
	// Default: DefaultTTL.
	TTL time.Duration

	// Wait bounds how long Acquire waits for a held key. Zero means no bound
	// beyond the context's own deadline.
	// Default: 0.
	Wait time.Duration

	// AutoRenew starts a watchdog that refreshes the lease every TTL/3 until
	// it is released. If a refresh finds the lease gone, or the lease's
	// deadline passes while the backend cannot be reached, Done is closed and
	// Err returns ErrLost.
	// Default: false.
	AutoRenew bool

	// Observer receives an Event for each acquisition, refusal, release,
	// failed renewal and loss.
	// Default: nil (no events).
	Observer Observer
}

// WithTTL sets the lease's time-to-live. It must be positive.
func WithTTL(ttl time.Duration) Option { return func(c *Config) { c.TTL = ttl } }

// WithWait bounds how long Acquire waits for a held key. Zero means no bound
// beyond the context's deadline.
func WithWait(d time.Duration) Option { return func(c *Config) { c.Wait = d } }

// WithAutoRenew keeps the lease alive in the background until it is released
// or lost; watch Done to learn of a loss.
func WithAutoRenew() Option { return func(c *Config) { c.AutoRenew = true } }

// WithObserver reports the lease's life to o, for metrics and logs.
func WithObserver(o Observer) Option { return func(c *Config) { c.Observer = o } }

// NewConfig applies opts over the defaults and validates the result.
func NewConfig(opts ...Option) (Config, error) {
	c := Config{TTL: DefaultTTL}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.TTL <= 0 {
		return c, fmt.Errorf("%w: ttl must be positive, got %v", ErrInvalid, c.TTL)
	}
	if c.Wait < 0 {
		return c, fmt.Errorf("%w: wait must not be negative, got %v", ErrInvalid, c.Wait)
	}
	return c, nil
}

// CheckKey returns an error for a key no backend accepts: the empty string.
func CheckKey(key string) error {
	if key == "" {
		return fmt.Errorf("%w: empty key", ErrInvalid)
	}
	return nil
}
