package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"
)

// envFlags defines flags that fall back to environment variables. The
// fallback is applied after parsing, to the flags the command line did not
// set, so -h shows the built-in defaults and never a secret from the
// environment (a password in STOCKADE_STORE).
type envFlags struct {
	fs     *flag.FlagSet
	getenv func(string) string
	help   io.Writer         // where -h prints the usage
	env    map[string]string // flag name → variable
	order  []string
}

func (e *envFlags) fallback(name, variable string) {
	if e.env == nil {
		e.env = make(map[string]string)
	}
	e.env[name] = variable
	e.order = append(e.order, name)
}

// String defines a string flag with a fallback on variable.
func (e *envFlags) String(name, variable, def, usage string) *string {
	e.fallback(name, variable)
	return e.fs.String(name, def, usage+" (env "+variable+")")
}

// Duration defines a duration flag with a fallback on variable.
func (e *envFlags) Duration(name, variable string, def time.Duration, usage string) *time.Duration {
	e.fallback(name, variable)
	return e.fs.Duration(name, def, usage+" (env "+variable+")")
}

// Int defines an int flag with a fallback on variable.
func (e *envFlags) Int(name, variable string, def int, usage string) *int {
	e.fallback(name, variable)
	return e.fs.Int(name, def, usage+" (env "+variable+")")
}

// Bool defines a bool flag with a fallback on variable.
func (e *envFlags) Bool(name, variable string, def bool, usage string) *bool {
	e.fallback(name, variable)
	return e.fs.Bool(name, def, usage+" (env "+variable+")")
}

// Float64 defines a float64 flag with a fallback on variable.
func (e *envFlags) Float64(name, variable string, def float64, usage string) *float64 {
	e.fallback(name, variable)
	return e.fs.Float64(name, def, usage+" (env "+variable+")")
}

// Parse parses args, refuses arguments that are not flags, and applies the
// environment to the flags not given. -h prints the usage as parseFlags
// does.
func (e *envFlags) Parse(args []string) error {
	rest, err := e.ParseArgs(args)
	if err == nil && len(rest) > 0 {
		return fmt.Errorf("unexpected arguments %q", rest)
	}
	return err
}

// ParseArgs is Parse for a command that takes arguments after its flags:
// it returns them.
func (e *envFlags) ParseArgs(args []string) ([]string, error) {
	if err := parseFlags(e.fs, args, e.help); err != nil {
		return nil, err
	}
	return e.fs.Args(), e.applyEnv()
}

// applyEnv sets the flags not given from their environment variables.
func (e *envFlags) applyEnv() error {
	var errs []error
	for _, name := range e.order {
		variable := e.env[name]
		v := e.getenv(variable)
		if v == "" || isSet(e.fs, name) {
			continue
		}
		if err := e.fs.Set(name, v); err != nil {
			errs = append(errs, fmt.Errorf("%s (for -%s): %w", variable, name, err))
		}
	}
	return errors.Join(errs...)
}

// parseFlags parses args into fs. Asked for with -h, -help or --help, the
// usage goes to help and the error is flag.ErrHelp, which run reports as
// success; after a bad flag, the message and the usage go to fs.Output().
func parseFlags(fs *flag.FlagSet, args []string, help io.Writer) error {
	out := fs.Output()
	var buf bytes.Buffer
	fs.SetOutput(&buf)
	err := fs.Parse(args)
	fs.SetOutput(out)
	if errors.Is(err, flag.ErrHelp) && help != nil {
		out = help
	}
	out.Write(buf.Bytes())
	return err
}
