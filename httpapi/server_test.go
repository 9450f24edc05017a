package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stockade/stockade"
)

type pingFunc func(context.Context) error

func (f pingFunc) Ping(ctx context.Context) error { return f(ctx) }

func TestReadyzFollowsDependencies(t *testing.T) {
	up := pingFunc(func(context.Context) error { return nil })
	down := pingFunc(func(context.Context) error { return errors.New("connection refused") })
	tests := []struct {
		name  string
		deps  []Pinger
		want  int
		wantC string
	}{
		{"no dependencies", nil, http.StatusOK, ""},
		{"all up", []Pinger{up, up}, http.StatusOK, ""},
		{"one down", []Pinger{up, down}, http.StatusServiceUnavailable, stockade.EUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewServer(nil, slog.New(slog.NewTextHandler(io.Discard, nil)), nil, tc.deps...)
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
			if rec.Code != tc.want {
				t.Fatalf("status %d, want %d", rec.Code, tc.want)
			}
			if tc.wantC == "" {
				return
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
				t.Errorf("Content-Type %q", ct)
			}
			var p problem
			if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
				t.Fatal(err)
			}
			if p.Code != tc.wantC || p.Status != tc.want {
				t.Errorf("problem %+v, want code %q status %d", p, tc.wantC, tc.want)
			}
		})
	}
}

func TestWriteErrorHidesInternalCauses(t *testing.T) {
	s := NewServer(nil, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	tests := []struct {
		err        error
		wantStatus int
		wantCode   string
		wantDetail string
	}{
		{stockade.Errorf(stockade.EInsufficientStock, "sku A: 3 available, 5 asked"), 409, "insufficient_stock", "sku A: 3 available, 5 asked"},
		{stockade.Errorf(stockade.EReservationExpired, "expired"), 410, "reservation_expired", "expired"},
		{stockade.Errorf(stockade.EIdempotencyMismatch, "other body"), 422, "idempotency_mismatch", "other body"},
		{errors.New("pq: password authentication failed for user secret"), 500, "internal", "internal error"},
		{stockade.Errorf("no_such_code", "x"), 500, "internal", "internal error"},
	}
	for _, tc := range tests {
		t.Run(tc.err.Error(), func(t *testing.T) {
			rec := httptest.NewRecorder()
			s.writeError(rec, httptest.NewRequest("GET", "/", nil), tc.err)
			var p problem
			if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
				t.Fatal(err)
			}
			if rec.Code != tc.wantStatus || p.Code != tc.wantCode || p.Detail != tc.wantDetail {
				t.Errorf("got %d %+v, want %d %s %q", rec.Code, p, tc.wantStatus, tc.wantCode, tc.wantDetail)
			}
		})
	}
}
