package main

import (
	"net/url"
	"strings"
)

// mask replaces a secret in what redact returns.
const mask = "xxxxx"

// secretWords mark a query parameter or key=value keyword whose value
// redact masks: a name that contains one of them, in any case, after
// percent-decoding (password, sslpassword, passwd, pwd, sslkey, api_key,
// access_key, token, secret, passphrase, credentials, auth…). A name that
// only looks secret is masked too: a masked log line costs less than a
// leaked password.
var secretWords = []string{"pass", "pwd", "secret", "token", "key", "credential", "auth", "signature", "private"}

// redact returns s, a store, locker or service address as given on the
// command line, fit to print: the password of its userinfo and the values
// of its secret query parameters are masked. It takes every form the flags
// do and some they do not: postgres://, redis://, rediss://,
// redlock://HOST,HOST,…, etcd://, http://, sqlite:PATH, a key=value
// connection string ("host=db password=…") and USER:PASSWORD@HOST:PORT.
// It never fails: text that parses as none of these comes back with every
// part that could be a password masked, at the cost of masking too much.
func redact(s string) string {
	i := schemeEnd(s)
	switch {
	case i > 0 && strings.HasPrefix(s[i:], "//"):
		return s[:i+2] + redactRest(s[i+2:])
	case i > 0 && strings.EqualFold(s[:i], "sqlite:"):
		// A file name: no userinfo, but maybe a query.
		path, query := s[i:], ""
		if j := strings.IndexAny(path, "?#"); j >= 0 {
			path, query = path[:j], path[j:]
		}
		return s[:i] + path + redactQuery(query)
	case i > 0:
		// No "//": the "scheme" may be a user name (USER:PASSWORD@HOST).
		return redactRest(s)
	case strings.Contains(s, "="):
		return redactKeywords(s)
	}
	return redactRest(s)
}

// schemeEnd returns the length of s's "scheme:" prefix, or 0 if s does not
// start with one (RFC 3986: a letter, then letters, digits, '+', '-', '.').
func schemeEnd(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return i + 1
		default:
			return 0
		}
	}
	return 0
}

// redactRest masks the userinfo passwords and secret query values of what
// follows a URL's "scheme://": [USERINFO@]HOSTS[/PATH][?QUERY][#FRAGMENT].
//
// The userinfo ends at the last '@' before the query. Everything in it
// after its first ':' is masked, so that a list of hosts each with its own
// userinfo (redlock://u:p@a,u:p@b) loses its passwords, and some hosts
// with them. When there is no '@' before the query but there is one after
// it, and a ':' before it, the '@' may end a password holding a raw '?' or
// '#': then the userinfo runs to that '@' instead, and all that follows it
// is read as query parameters.
func redactRest(rest string) string {
	head, tail := rest, ""
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		head, tail = rest[:i], rest[i:]
	}
	at := strings.LastIndex(head, "@")
	ambiguous := false
	if at < 0 && strings.Contains(tail, "@") && strings.Contains(head, ":") {
		at, ambiguous = strings.LastIndex(rest, "@"), true
	}
	if at < 0 {
		return head + redactQuery(tail)
	}
	userinfo, after := rest[:at], rest[at:] // after starts with '@'
	if user, _, ok := strings.Cut(userinfo, ":"); ok {
		userinfo = user + ":" + mask
	}
	if ambiguous {
		return userinfo + redactQuery(after)
	}
	if i := strings.IndexAny(after, "?#"); i >= 0 {
		return userinfo + after[:i] + redactQuery(after[i:])
	}
	return userinfo + after
}

// redactQuery masks the secret values of q, a query or fragment with its
// leading '?' or '#', or a run of parameters. Parameters are separated by
// '&' or ';'; a '?' or '#' in one starts parameters of its own.
func redactQuery(q string) string {
	var b strings.Builder
	if q != "" && (q[0] == '?' || q[0] == '#') {
		b.WriteByte(q[0])
		q = q[1:]
	}
	for {
		param, sep, more := q, "", false
		if i := strings.IndexAny(q, "&;"); i >= 0 {
			param, sep, q, more = q[:i], q[i:i+1], q[i+1:], true
		}
		if name, _, ok := strings.Cut(param, "="); ok && isSecret(name) {
			param = name + "=" + mask
		} else if i := strings.IndexAny(param, "?#"); i >= 0 {
			param = param[:i] + redactQuery(param[i:])
		}
		b.WriteString(param + sep)
		if !more {
			return b.String()
		}
	}
}

// redactKeywords masks the secret values of a key=value connection string
// as libpq reads it: pairs separated by spaces, spaces allowed around '=',
// a value in single quotes with backslash escapes or bare up to the next
// space. An unterminated quote runs to the end.
func redactKeywords(s string) string {
	var b strings.Builder
	i := 0
	for i < len(s) {
		// Spaces, then the keyword up to '=' or a space.
		j := i
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		k := j
		for k < len(s) && s[k] != '=' && !isSpace(s[k]) {
			k++
		}
		name := s[j:k]
		for k < len(s) && isSpace(s[k]) {
			k++
		}
		if k == len(s) || s[k] != '=' {
			// Not a pair: keep it as it is.
			b.WriteString(s[i:k])
			i = k
			continue
		}
		k++ // '='
		for k < len(s) && isSpace(s[k]) {
			k++
		}
		b.WriteString(s[i:k])
		v := k
		if v < len(s) && s[v] == '\'' {
			v++
			for v < len(s) && s[v] != '\'' {
				if s[v] == '\\' {
					v++
				}
				v++
			}
			v = min(v+1, len(s)) // past the closing quote
		} else {
			for v < len(s) && !isSpace(s[v]) {
				if s[v] == '\\' {
					v++
				}
				v++
			}
			v = min(v, len(s))
		}
		if inner, _, ok := strings.Cut(s[k:v], "="); isSecret(name) || ok && isSecret(inner) {
			// A secret, or a value that reads as one (a password after
			// "host= " is host's value to the driver, and its password to
			// whoever wrote it).
			b.WriteString(mask)
		} else {
			b.WriteString(s[k:v])
		}
		i = v
	}
	return b.String()
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// isSecret reports whether the parameter or keyword name holds a secret.
func isSecret(name string) bool {
	if n, err := url.QueryUnescape(name); err == nil {
		name = n
	}
	name = strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// redactList is redact of each of a list of addresses separated by
// commas, such as the servers of a NATS cluster.
func redactList(s string) string {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = redact(p)
	}
	return strings.Join(parts, ",")
}
