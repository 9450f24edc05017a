package main

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		// Nothing to mask.
		{"empty", "", ""},
		{"memory", "memory", "memory"},
		{"sqlite", "sqlite:stockade.db", "sqlite:stockade.db"},
		{"sqlite path", "sqlite:/var/lib/stockade/s.db", "sqlite:/var/lib/stockade/s.db"},
		{"postgres without password", "postgres://app@db:5432/shop?sslmode=require", "postgres://app@db:5432/shop?sslmode=require"},
		{"redis", "redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"},
		{"redlock", "redlock://a:6379,b:6379,c:6379", "redlock://a:6379,b:6379,c:6379"},
		{"etcd", "etcd://a:2379,b:2379", "etcd://a:2379,b:2379"},
		{"http", "http://127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"host and port", "127.0.0.1:6379", "127.0.0.1:6379"},
		{"keywords without password", "host=db user=app dbname=shop", "host=db user=app dbname=shop"},
		{"user only", "redis://app@cache:6379", "redis://app@cache:6379"},
		{"keyword value that looks secret", "host=keystone", "host=keystone"},

		// Userinfo.
		{"postgres password", "postgres://app:s3cret@db:5432/shop", "postgres://app:xxxxx@db:5432/shop"},
		{"postgresql password", "postgresql://app:s3cret@db/shop", "postgresql://app:xxxxx@db/shop"},
		{"postgres multi-host", "postgres://app:s3cret@a:5432,b:5432/shop", "postgres://app:xxxxx@a:5432,b:5432/shop"},
		{"password with @", "postgres://app:s3@cret@db/shop", "postgres://app:xxxxx@db/shop"},
		{"password with /", "postgres://app:s3/cret@db/shop", "postgres://app:xxxxx@db/shop"},
		{"password with raw ?", "postgres://app:s3?cret@db/shop?sslmode=disable", "postgres://app:xxxxx@db/shop?sslmode=disable"},
		{"password with raw #", "redis://:s3#cret@cache:6379", "redis://:xxxxx@cache:6379"},
		{"redis password only", "redis://:s3cret@cache:6379/1", "redis://:xxxxx@cache:6379/1"},
		{"rediss user and password", "rediss://default:s3cret@cache:6380", "rediss://default:xxxxx@cache:6380"},
		{"redlock node passwords", "redlock://u:s3cret@a:6379,u:s3cret@b:6379", "redlock://u:xxxxx@b:6379"},
		{"etcd endpoint password", "etcd://a:2379,root:s3cret@b:2379", "etcd://a:xxxxx@b:2379"},
		{"no scheme", "app:s3cret@db:5432", "app:xxxxx@db:5432"},
		{"http basic auth", "https://bench:s3cret@stockade.example/", "https://bench:xxxxx@stockade.example/"},

		// Query parameters.
		{"postgres password param", "postgres://app@db/shop?password=s3cret", "postgres://app@db/shop?password=xxxxx"},
		{"postgres sslpassword", "postgres://db/shop?sslmode=verify-full&sslpassword=s3cret&sslkey=/k.pem", "postgres://db/shop?sslmode=verify-full&sslpassword=xxxxx&sslkey=xxxxx"},
		{"case", "postgres://db/shop?PassWord=s3cret", "postgres://db/shop?PassWord=xxxxx"},
		{"percent-encoded name", "postgres://db/shop?pass%77ord=s3cret", "postgres://db/shop?pass%77ord=xxxxx"},
		{"semicolons", "postgres://db/shop?a=1;password=s3cret", "postgres://db/shop?a=1;password=xxxxx"},
		{"redis password param", "redis://cache:6379/0?password=s3cret&dial_timeout=1s", "redis://cache:6379/0?password=xxxxx&dial_timeout=1s"},
		{"token, secret, access key", "etcd://a:2379?token=t1&client_secret=t2&access_key=t3&AWS_SECRET_ACCESS_KEY=t4", "etcd://a:2379?token=xxxxx&client_secret=xxxxx&access_key=xxxxx&AWS_SECRET_ACCESS_KEY=xxxxx"},
		{"password and userinfo", "postgres://app:s3cret@db/shop?password=s3cret", "postgres://app:xxxxx@db/shop?password=xxxxx"},
		{"sqlite query", "sqlite:s.db?_auth_pass=s3cret", "sqlite:s.db?_auth_pass=xxxxx"},
		{"fragment", "redis://cache:6379#password=s3cret", "redis://cache:6379#password=xxxxx"},
		{"fragment after a value", "redis://cache:6379?db=1#password=s3cret", "redis://cache:6379?db=1#password=xxxxx"},
		{"@ in a query value", "postgres://db:5432/shop?options=a@b&password=s3cret", "postgres://db:xxxxx@b&password=xxxxx"},

		// key=value connection strings.
		{"keyword password", "host=db user=app password=s3cret dbname=shop", "host=db user=app password=xxxxx dbname=shop"},
		{"keyword spaces", "host = db password = s3cret", "host = db password = xxxxx"},
		{"keyword quoted", "host=db password='s3 cret' dbname=shop", "host=db password=xxxxx dbname=shop"},
		{"keyword escaped quote", `password='s3\' cret' host=db`, "password=xxxxx host=db"},
		{"keyword unterminated", "host=db password='s3cret", "host=db password=xxxxx"},
		{"keyword empty before password", "host= password=s3cret", "host= xxxxx"},
		{"keyword sslpassword", "sslpassword=s3cret sslmode=require", "sslpassword=xxxxx sslmode=require"},
		{"keyword trailing backslash", `password=s3cret\`, "password=xxxxx"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := redact(tc.in)
			if got != tc.want {
				t.Errorf("redact(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if strings.Contains(tc.in, "s3") && strings.Contains(got, "s3") {
				t.Errorf("redact(%q) = %q still shows the secret", tc.in, got)
			}
		})
	}
}

// FuzzRedact: redact never panics, and a password given as a query
// parameter or in a userinfo never survives it.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"postgres://app:pw@db/x?password=pw", "redis://:pw@h:1", "redlock://a:1,u:pw@b:2",
		"host=db password='pw'", "sqlite:x.db", "a:b@c?d#e@f", "=", "'", `\`, "@", ":@", "?#@:",
	} {
		f.Add(s, "sEcReT")
	}
	f.Fuzz(func(t *testing.T, s, secret string) {
		_ = redact(s)
		if len(secret) < 4 || strings.ContainsAny(secret, "@:/?#&;='\\ \t\n\r\f\v%+") {
			return
		}
		for _, in := range []string{
			"postgres://app:" + secret + "@" + s,
			"redis://h:1/" + s + "?password=" + secret,
			"host=db password=" + secret + " " + s,
		} {
			if strings.Contains(s, secret) || strings.Contains(strings.ToLower(secret), "xxxxx") {
				return
			}
			if got := redact(in); strings.Contains(got, secret) {
				t.Errorf("redact(%q) = %q shows %q", in, got, secret)
			}
		}
	})
}
