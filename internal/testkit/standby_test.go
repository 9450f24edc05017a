package testkit

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestStandby: a synchronous standby has the primary's commits, holds
// them back while its replication is paused, refuses writes until it is
// promoted, and a multi-host URL reaches whichever server takes writes.
func TestStandby(t *testing.T) {
	t.Parallel()
	primary := NewPostgres(t)
	standby := NewStandby(t, primary, &StandbyOptions{Synchronous: true})
	ctx := t.Context()
	connect := func(url string) *pgx.Conn {
		t.Helper()
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c
	}
	p, s := connect(primary.URL()), connect(standby.URL())
	if _, err := p.Exec(ctx, "CREATE TABLE t (x int); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	// A synchronous standby has applied what the primary acknowledged
	// once it has replayed it; wait for the replay, not for the commit.
	count := func() int {
		t.Helper()
		var n int
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			err := s.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n)
			var pe *pgconn.PgError
			if err == nil || !errors.As(err, &pe) || pe.Code != "42P01" || time.Now().After(deadline) {
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
		}
	}
	if n := count(); n != 1 {
		t.Fatalf("standby has %d rows, want 1", n)
	}
	if _, err := s.Exec(ctx, "INSERT INTO t VALUES (2)"); err == nil {
		t.Fatal("a write on the standby succeeded")
	}

	// Paused, the standby confirms nothing: the primary's commit waits
	// until replication resumes.
	if err := standby.PauseReplication(); err != nil {
		t.Fatal(err)
	}
	committed := make(chan error, 1)
	go func() {
		_, err := p.Exec(context.Background(), "INSERT INTO t VALUES (2)")
		committed <- err
	}()
	select {
	case err := <-committed:
		t.Fatalf("a commit returned (%v) while the synchronous standby's replication was paused", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := standby.ResumeReplication(); err != nil {
		t.Fatal(err)
	}
	if err := <-committed; err != nil {
		t.Fatal(err)
	}

	// The primary crashes; promoted, the standby takes writes, and the
	// multi-host URL skips the dead primary.
	if err := primary.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := standby.Promote(); err != nil {
		t.Fatal(err)
	}
	c := connect(MultiHostURL("postgres", primary, standby))
	if _, err := c.Exec(ctx, "INSERT INTO t VALUES (3)"); err != nil {
		t.Fatalf("write through the multi-host URL after the promotion: %v", err)
	}
	var n int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 3 {
		t.Fatalf("the promoted standby has %d rows (%v), want 3", n, err)
	}
}
