package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/httpapi"
	"github.com/stockade/stockade/internal/testkit"
)

// The console's tests drive the page that "stockade serve" embeds in a
// real headless Chromium (Debian's chromium package; scripts/test installs
// it), through chromedp. Each page's screenshots, at 1280×800 and at a
// phone's width, go to $STOCKADE_ARTIFACTS/console, or artifacts/console
// at the top of the repository.

// chromium returns the path of the browser, or skips the test when there
// is none, unless STOCKADE_REQUIRE_SERVERS=1 asks for every dependency.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("STOCKADE_CHROMIUM"), "chromium", "chromium-browser"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("STOCKADE_REQUIRE_SERVERS") == "1" {
		t.Fatal("chromium is not installed: apt-get install chromium (scripts/test does)")
	}
	t.Skip("chromium is not installed: apt-get install chromium, or run scripts/test")
	return ""
}

// newBrowser starts a headless Chromium for the test and returns its
// context; every tab opened from it with newTab shares the browser.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox, // tests may run as root, where the sandbox refuses to start
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 800),
	)
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(cancelBrowser)
	if err := chromedp.Do(browser); err != nil { // starts the browser
		t.Fatalf("start chromium: %v", err)
	}
	return browser
}

// newTab opens a tab of its own (its own sessionStorage, so its own
// sign-in) for the rest of the test.
func newTab(t *testing.T, browser context.Context) context.Context {
	t.Helper()
	tab, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	tab, cancelTimeout := context.WithTimeout(tab, 2*time.Minute)
	t.Cleanup(cancelTimeout)
	return tab
}

// do runs steps in tab, failing the test with what was being done.
func do(t *testing.T, tab context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(tab, steps...); err != nil {
		shot(t, tab, "failed-"+strings.ReplaceAll(what, " ", "-"))
		t.Fatalf("%s: %v", what, err)
	}
}

// untilTrue waits until the JavaScript expression js is true in tab.
func untilTrue(t *testing.T, tab context.Context, what, js string) {
	t.Helper()
	_, err := chromedp.Run(tab, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(20*time.Second), chromedp.WithPollingInterval(20*time.Millisecond)))
	if err != nil {
		shot(t, tab, "failed-"+strings.ReplaceAll(what, " ", "-"))
		t.Fatalf("wait for %s: %v", what, err)
	}
}

// eval returns the value of the JavaScript expression js in tab.
func eval[T any](t *testing.T, tab context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(tab, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// shot saves a screenshot of the whole page as name.png among the
// artifacts.
func shot(t *testing.T, tab context.Context, name string) {
	t.Helper()
	dir := os.Getenv("STOCKADE_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "artifacts")
	}
	dir = filepath.Join(dir, "console")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
	if err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Errorf("screenshot %s: %v", name, err)
	}
}

// consoleService is a service whose console the tests open: its address,
// a second service on the same store that changes things while the first
// is down, and keys of each role.
type consoleService struct {
	t                         *testing.T // the test the service lives as long as
	store                     string
	addr                      string
	srv                       *server
	admin, reader, storefront string
	api                       *httpapi.Client // the first service, with the admin key
	args                      []string        // serve's flags beyond the console's own
}

// startConsoleService starts a service with its console, and args as
// more flags of serve.
func startConsoleService(t *testing.T, args ...string) *consoleService {
	t.Helper()
	cs := &consoleService{t: t, store: "sqlite:" + filepath.Join(t.TempDir(), "console.db"), addr: freeAddr(t), args: args}
	cs.start()
	key := func(role string) string {
		out, stderr, err := keysRun(t, "create", "-store", cs.store, "-role", role, "-name", role)
		if err != nil {
			t.Fatalf("keys create -role %s: %v\n%s", role, err, stderr)
		}
		return strings.TrimSpace(out)
	}
	cs.admin, cs.reader, cs.storefront = key("admin"), key("reader"), key("storefront")
	cs.api = httpapi.NewClient("http://"+cs.addr, nil).WithKey(cs.admin)
	return cs
}

// start starts (or starts again) the service at cs.addr, for as long as
// the test that made cs.
func (cs *consoleService) start() {
	cs.t.Helper()
	cs.srv = startServe(cs.t, nil, append([]string{"-open=false", "-addr", cs.addr, "-store", cs.store, "-strategy", "lock", "-sweep-interval", "200ms"}, cs.args...)...)
}

// freeAddr returns a loopback address with a port nobody listens on, so
// that a service can be stopped and started again at the same address.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// signIn opens the console in tab and signs in with key, and waits for
// the page to be live.
func signIn(t *testing.T, tab context.Context, cs *consoleService, key string) {
	t.Helper()
	do(t, tab, "sign in",
		chromedp.Navigate("http://"+cs.addr+"/"), // redirects to the console
		chromedp.WaitVisible(chromedp.CSS("#key")),
		chromedp.SendKeys(chromedp.CSS("#key"), key),
		chromedp.Click(chromedp.CSS("form.login button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("header.bar")),
	)
	untilTrue(t, tab, "the live stream", `document.getElementById('live').dataset.state === 'live'`)
}

// open shows the page at hash, and waits until it has drawn what it
// first read.
func open(t *testing.T, tab context.Context, hash string) {
	t.Helper()
	if _, err := chromedp.Run(tab, chromedp.Evaluate[any](fmt.Sprintf("location.hash = %q", hash))); err != nil {
		t.Fatalf("open %s: %v", hash, err)
	}
	untilTrue(t, tab, hash, fmt.Sprintf(`document.getElementById('main').dataset.route === %q && document.getElementById('main').dataset.ready === 'true'`, hash))
}

func stockUpWidget(t *testing.T, c *httpapi.Client, onHand int64) {
	t.Helper()
	if _, err := c.PutLocation(t.Context(), stockade.Location{ID: "ewr", Name: "Newark", Point: &stockade.Point{Lat: 40.73, Lon: -74.17}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetStock(t.Context(), stockade.Key{SKU: "widget", Location: "ewr"}, onHand, nil, nil); err != nil {
		t.Fatal(err)
	}
}

func TestConsole(t *testing.T) {
	t.Parallel()
	cs := startConsoleService(t)
	browser := newBrowser(t)
	stockUpWidget(t, cs.api, 10)

	t.Run("sign-in refuses a wrong or storefront key", func(t *testing.T) {
		tab := newTab(t, browser)
		do(t, tab, "open the console", chromedp.Navigate("http://"+cs.addr+"/console/"), chromedp.WaitVisible(chromedp.CSS("#key")))
		for _, tc := range []struct{ key, want string }{
			{"stk_nope_0000", "refused the key"},
			{cs.storefront, "storefront key"},
		} {
			do(t, tab, "sign in with "+tc.want,
				chromedp.SetValue(chromedp.CSS("#key"), tc.key),
				chromedp.Click(chromedp.CSS("form.login button[type=submit]")))
			untilTrue(t, tab, "the refusal", fmt.Sprintf(`document.getElementById('notice').textContent.includes(%q)`, tc.want))
		}
		if eval[bool](t, tab, `document.querySelector('header.bar').hidden`) == false {
			t.Fatal("the pages' navigation shows without a good key")
		}
		shot(t, tab, "sign-in-refused")
	})

	t.Run("the keyboard alone signs in and moves between pages", func(t *testing.T) {
		tab := newTab(t, browser)
		do(t, tab, "open the console", chromedp.Navigate("http://"+cs.addr+"/console/"), chromedp.WaitVisible(chromedp.CSS("#key")))
		untilTrue(t, tab, "the key field to have the focus", `document.activeElement?.id === 'key'`)
		do(t, tab, "type the key, then Enter", chromedp.KeyEvent(cs.admin), chromedp.KeyEvent(kb.Enter))
		untilTrue(t, tab, "the overview", `location.hash === '#/' && document.getElementById('main').dataset.ready === 'true'`)
		// The page's content has the focus; the navigation is before it.
		for i := 0; eval[string](t, tab, `document.activeElement?.textContent`) != "Stock"; i++ {
			if i == 20 {
				t.Fatal("Shift+Tab never reached the Stock link")
			}
			do(t, tab, "Shift+Tab", chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(chromedp.ModifierShift)))
		}
		do(t, tab, "Enter", chromedp.KeyEvent(kb.Enter))
		untilTrue(t, tab, "the stock page", `location.hash === '#/stock' && document.getElementById('main').dataset.ready === 'true'`)
	})

	t.Run("a reservation appears live and is released from the page", func(t *testing.T) {
		tab := newTab(t, browser)
		signIn(t, tab, cs, cs.admin)
		open(t, tab, "#/reservations")
		untilTrue(t, tab, "the list", `document.querySelector('main tbody') !== null`)

		start := time.Now()
		r, err := cs.api.Reserve(t.Context(), stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 3}}, TTL: 10 * time.Minute}, nil)
		if err != nil {
			t.Fatal(err)
		}
		row := fmt.Sprintf(`tr[data-id=%q]`, r.ID)
		untilTrue(t, tab, "the new reservation's row", fmt.Sprintf(`document.querySelector('%s') !== null`, row))
		t.Logf("the reservation showed %v after the request was sent", time.Since(start).Round(time.Millisecond))
		shot(t, tab, "reservations")

		if st, err := cs.api.Stock(t.Context(), "widget"); err != nil || st.Totals.Available != 7 {
			t.Fatalf("before the release: %+v, %v; want 7 available", st.Totals, err)
		}
		do(t, tab, "release it",
			chromedp.Click(chromedp.CSS(row+` button[data-action=release]`)),
			chromedp.WaitVisible(chromedp.CSS(`dialog[open] button[value=ok]`)),
			chromedp.Click(chromedp.CSS(`dialog[open] button[value=ok]`)))
		untilTrue(t, tab, "the row to say released", fmt.Sprintf(`document.querySelector('%s')?.dataset.status === 'released'`, row))
		if got, err := cs.api.Reservation(t.Context(), r.ID); err != nil || got.Status != stockade.Released {
			t.Fatalf("after the release from the page: %+v, %v", got, err)
		}
		if st, err := cs.api.Stock(t.Context(), "widget"); err != nil || st.Totals.Available != 10 || st.Totals.Reserved != 0 {
			t.Fatalf("after the release: %+v, %v; want all 10 available", st.Totals, err)
		}
	})

	t.Run("stock is adjusted from the page after a confirmation", func(t *testing.T) {
		tab := newTab(t, browser)
		signIn(t, tab, cs, cs.admin)
		open(t, tab, "#/stock/widget")
		untilTrue(t, tab, "the levels", `document.querySelector('.totals')?.dataset.available === '10'`)
		do(t, tab, "fill in the adjustment",
			chromedp.SendKeys(chromedp.CSS("#adjust-location"), "ewr"),
			chromedp.SendKeys(chromedp.CSS("#adjust-delta"), "5"),
			chromedp.SendKeys(chromedp.CSS("#adjust-reason"), "found a box"),
			chromedp.Click(chromedp.CSS("form.adjust button[type=submit]")),
			chromedp.WaitVisible(chromedp.CSS(`dialog[open]`)))
		// Cancelled, it changes nothing.
		do(t, tab, "cancel", chromedp.Click(chromedp.CSS(`dialog[open] button[value=cancel]`)))
		if st, err := cs.api.Stock(t.Context(), "widget"); err != nil || st.Totals.OnHand != 10 {
			t.Fatalf("after a cancelled adjustment: %+v, %v; want 10 on hand", st.Totals, err)
		}
		do(t, tab, "confirm",
			chromedp.Click(chromedp.CSS("form.adjust button[type=submit]")),
			chromedp.WaitVisible(chromedp.CSS(`dialog[open] button[value=ok]`)),
			chromedp.Click(chromedp.CSS(`dialog[open] button[value=ok]`)))
		untilTrue(t, tab, "the new level", `document.querySelector('.totals')?.dataset.available === '15'`)
		if st, err := cs.api.Stock(t.Context(), "widget"); err != nil || st.Totals.OnHand != 15 {
			t.Fatalf("after the adjustment: %+v, %v; want 15 on hand", st.Totals, err)
		}
		untilTrue(t, tab, "the movement", `[...document.querySelectorAll('main td')].some((td) => td.textContent === 'found a box')`)
		shot(t, tab, "stock-sku")
	})

	t.Run("a reader key sees no change controls", func(t *testing.T) {
		if _, err := cs.api.Reserve(t.Context(), stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 1}}, TTL: 10 * time.Minute}, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.api.Checkout(t.Context(), stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 1}}}, nil); err != nil {
			t.Fatal(err)
		}
		admin := newTab(t, browser)
		signIn(t, admin, cs, cs.admin)
		reader := newTab(t, browser)
		signIn(t, reader, cs, cs.reader)
		for _, page := range []struct{ hash, ready string }{
			{"#/stock/widget", `document.querySelector('.totals')?.dataset.available !== undefined`},
			{"#/reservations", `document.querySelector('main tbody tr[data-id]') !== null`},
			{"#/orders", `document.querySelector('main tbody tr[data-id]') !== null`},
		} {
			controls := `document.querySelectorAll('main button[data-action], form.adjust').length`
			open(t, admin, page.hash)
			untilTrue(t, admin, page.hash, page.ready)
			if n := eval[int](t, admin, controls); n == 0 {
				t.Errorf("%s: an admin sees no controls, so the reader's check proves nothing", page.hash)
			}
			open(t, reader, page.hash)
			untilTrue(t, reader, page.hash, page.ready)
			if n := eval[int](t, reader, controls); n != 0 {
				t.Errorf("%s: a reader sees %d change controls", page.hash, n)
			}
		}
		shot(t, reader, "reader-orders")
	})

	t.Run("the seat map recolours live during an on-sale", func(t *testing.T) {
		const show = "gala"
		putArena(t, cs.api, show, 2, 5, 20) // 200 seats
		tab := newTab(t, browser)
		signIn(t, tab, cs, cs.admin)
		open(t, tab, "#/shows/"+show)
		untilTrue(t, tab, "200 free seats", `document.querySelectorAll('#seatmap circle.seat-free').length === 200`)

		holds := sellOut(t, cs.api, show)
		// Confirm every other hold and release every fifth, so all three
		// colours show.
		for i, h := range holds {
			switch {
			case i%5 == 0:
				if _, err := cs.api.ReleaseHold(t.Context(), h.ID, nil); err != nil {
					t.Fatal(err)
				}
			case i%2 == 0:
				if _, err := cs.api.ConfirmHold(t.Context(), h.ID, nil); err != nil {
					t.Fatal(err)
				}
			}
		}
		want := map[stockade.SeatStatus]int64{}
		view, err := cs.api.Show(t.Context(), show)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range view.Counts {
			want[c.Status] += c.Count
		}
		if want[stockade.SeatFree] == 0 || want[stockade.SeatHeld] == 0 || want[stockade.SeatBooked] == 0 {
			t.Fatalf("the sale left %v: want seats of each status", want)
		}
		untilTrue(t, tab, "the map to match the API", fmt.Sprintf(
			`document.querySelectorAll('#seatmap circle.seat-free').length === %d && document.querySelectorAll('#seatmap circle.seat-held').length === %d && document.querySelectorAll('#seatmap circle.seat-booked').length === %d`,
			want[stockade.SeatFree], want[stockade.SeatHeld], want[stockade.SeatBooked]))
		// The counts per section and category are the API's.
		for _, c := range view.Counts {
			cell := fmt.Sprintf(`document.querySelector('#seat-counts tr[data-section=%q][data-category=%q] td[data-status=%q]')?.textContent`, c.Section, c.Category, c.Status)
			untilTrue(t, tab, fmt.Sprintf("%s/%s %s", c.Section, c.Category, c.Status), fmt.Sprintf(`%s === %q`, cell, fmt.Sprint(c.Count)))
		}
		shot(t, tab, "show-seatmap")
	})

	t.Run("the shows page lists the shows, and a map draws aisles and accessible seats", func(t *testing.T) {
		hall := stockade.Show{ID: "hall-ui", Name: "Hall with aisles", Focal: stockade.SeatPoint{X: 5},
			Rows: []stockade.SeatRow{
				{Section: "stalls", Row: "A", First: 1, Last: 10, AislesAfter: []int{3, 7}, Accessible: []int{1, 10}, Start: stockade.SeatPoint{X: 0, Y: 1}},
				{Section: "stalls", Row: "B", First: 1, Last: 10, AislesAfter: []int{5}, Start: stockade.SeatPoint{X: 0, Y: 2}},
			}}
		if _, err := cs.api.PutShow(t.Context(), hall, nil); err != nil {
			t.Fatal(err)
		}
		tab := newTab(t, browser)
		signIn(t, tab, cs, cs.admin)
		open(t, tab, "#/shows")
		link := `document.querySelector('#show-list tr[data-show="hall-ui"] a')`
		untilTrue(t, tab, "the show in the list", link+`?.getAttribute('href') === '#/shows/hall-ui'`)
		if name := eval[string](t, tab, `document.querySelector('#show-list tr[data-show="hall-ui"] td:nth-child(2)').textContent`); name != hall.Name {
			t.Errorf("the listed show's name: %q, want %q", name, hall.Name)
		}
		// A show made while the page is open joins the list.
		later := hall
		later.ID, later.Name = "hall-ui-2", "Second hall"
		if _, err := cs.api.PutShow(t.Context(), later, nil); err != nil {
			t.Fatal(err)
		}
		untilTrue(t, tab, "the new show listed first", `document.querySelector('#show-list tr')?.dataset.show === 'hall-ui-2'`)
		shot(t, tab, "shows-list")
		do(t, tab, "open the show", chromedp.Click(chromedp.CSS(`#show-list tr[data-show="hall-ui"] a`)))
		untilTrue(t, tab, "20 seats, 3 aisles and 2 accessible seats", `document.querySelectorAll('#seatmap circle.seat').length === 20 && `+
			`document.querySelectorAll('#seatmap line.aisle').length === 3 && document.querySelectorAll('#seatmap circle.accessible').length === 2`)
		if got := eval[string](t, tab, `[...document.querySelectorAll('#seatmap circle.accessible')].map((c) => c.dataset.accessible).join(' ')`); got != "stalls/A/1 stalls/A/10" {
			t.Errorf("accessible seats marked: %q, want stalls/A/1 stalls/A/10", got)
		}
		if got := eval[string](t, tab, `[...document.querySelectorAll('#seatmap line.aisle')].map((l) => l.dataset.aisle + '@' + l.getAttribute('x1')).join(' ')`); got != "stalls/A/3@2.5 stalls/A/7@6.5 stalls/B/5@4.5" {
			t.Errorf("aisles drawn: %q, want after A3, A7 and B5, between their seats", got)
		}
		shot(t, tab, "show-aisles")
	})

	t.Run("the page resumes after the stream is cut, without gaps or repeats", func(t *testing.T) {
		tab := newTab(t, browser)
		signIn(t, tab, cs, cs.admin)
		open(t, tab, "#/events")
		before, err := cs.api.Reserve(t.Context(), stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 1}}, TTL: 10 * time.Minute}, nil)
		if err != nil {
			t.Fatal(err)
		}
		seen := func(id string) string {
			return fmt.Sprintf(`document.querySelectorAll('#event-rows tr[data-aggregate-id=%q][data-type="reservation.held"]').length`, id)
		}
		untilTrue(t, tab, "the first reservation", seen(before.ID)+` === 1`)

		// Cut: the service stops, and a second one on the same store makes
		// a reservation while the page cannot reach the first.
		if err := cs.srv.stop(); err != nil {
			t.Fatal(err)
		}
		untilTrue(t, tab, "the page to notice", `document.getElementById('live').dataset.state === 'reconnecting'`)
		other := startServe(t, nil, "-open=false", "-store", cs.store)
		during, err := httpapi.NewClient("http://"+other.addr, nil).WithKey(cs.admin).Reserve(t.Context(),
			stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 1}}, TTL: 10 * time.Minute}, nil)
		if err != nil {
			t.Fatal(err)
		}
		shot(t, tab, "events-reconnecting")
		cs.start()
		untilTrue(t, tab, "the page to be live again", `document.getElementById('live').dataset.state === 'live'`)
		untilTrue(t, tab, "the reservation made while it was cut", seen(during.ID)+` === 1`)
		after, err := cs.api.Reserve(t.Context(), stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 1}}, TTL: 10 * time.Minute}, nil)
		if err != nil {
			t.Fatal(err)
		}
		untilTrue(t, tab, "a reservation made after", seen(after.ID)+` === 1`)
		if n := eval[int](t, tab, seen(before.ID)); n != 1 {
			t.Errorf("the reservation from before the cut shows %d times", n)
		}
		shot(t, tab, "events")
	})

	t.Run("screenshots of every page", func(t *testing.T) {
		tab := newTab(t, browser)
		signIn(t, tab, cs, cs.admin)
		res, err := cs.api.Reservations(t.Context(), stockade.ListQuery{Limit: 1})
		if err != nil || len(res.Reservations) == 0 {
			t.Fatalf("reservations: %v, %v", res, err)
		}
		pages := []struct{ name, hash string }{
			{"overview", "#/"},
			{"stock", "#/stock"},
			{"stock-sku", "#/stock/widget"},
			{"reservations", "#/reservations"},
			{"reservation", "#/reservations/" + res.Reservations[0].ID},
			{"orders", "#/orders"},
			{"shows", "#/shows"},
			{"show", "#/shows/gala"},
			{"rooms-none", "#/rooms"},
			{"events", "#/events"},
			{"locks", "#/locks"},
		}
		for _, size := range []struct {
			name string
			w, h int64
		}{{"1280", 1280, 800}, {"phone", 390, 844}} {
			do(t, tab, "resize", chromedp.EmulateViewport(size.w, size.h))
			for _, p := range pages {
				open(t, tab, p.hash)
				if w := eval[int](t, tab, `document.documentElement.scrollWidth`); w > int(size.w)+1 {
					t.Errorf("%s at %d px wide scrolls sideways: %d px", p.name, size.w, w)
				}
				shot(t, tab, p.name+"-"+size.name)
			}
		}
	})
}

// sellOut holds the show's seats, 1 to 4 best-available at a time, from
// 16 buyers at once, until none is left; it returns the holds.
func sellOut(t *testing.T, c *httpapi.Client, show string) []stockade.Hold {
	t.Helper()
	var (
		mu    sync.Mutex
		holds []stockade.Hold
		wg    sync.WaitGroup
	)
	for b := range 16 {
		wg.Go(func() {
			for i := 0; ; i++ {
				h, err := c.HoldSeats(t.Context(), stockade.HoldRequest{ShowID: show, Best: []stockade.BestSeats{{Quantity: 1 + (b+i)%4, AllowSplit: true}}, TTL: 10 * time.Minute}, nil)
				if stockade.ErrorCode(err) == stockade.ESoldOut {
					if h, err = c.HoldSeats(t.Context(), stockade.HoldRequest{ShowID: show, Best: []stockade.BestSeats{{Quantity: 1}}, TTL: 10 * time.Minute}, nil); stockade.ErrorCode(err) == stockade.ESoldOut {
						return
					}
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				holds = append(holds, h)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return holds
}

// TestConsoleSections opens a show too large for the page to draw whole
// (above its 2,000 seats): the page draws the show's sections with the
// service's counts, and the seats of the section chosen only.
func TestConsoleSections(t *testing.T) {
	t.Parallel()
	cs := startConsoleService(t)
	browser := newBrowser(t)
	const show = "stadium-ui"
	putArena(t, cs.api, show, 3, 25, 40) // sections S0, S1 and S2 of 1,000 seats
	hold := func(seats ...string) stockade.Hold {
		t.Helper()
		h, err := cs.api.HoldSeats(t.Context(), stockade.HoldRequest{ShowID: show, Seats: seats, TTL: 10 * time.Minute}, nil)
		if err != nil {
			t.Fatalf("hold %v: %v", seats, err)
		}
		return h
	}
	// Five seats of S2 held before the page opens, so that the sections'
	// free counts differ.
	hold("S2/R00/1", "S2/R00/2", "S2/R00/3", "S2/R00/4", "S2/R00/5")
	view, err := cs.api.Show(t.Context(), show)
	if err != nil {
		t.Fatal(err)
	}
	free := map[string]int64{}
	for _, c := range view.Counts {
		if c.Status == stockade.SeatFree {
			free[c.Section] += c.Count
		}
	}
	if want := (map[string]int64{"S0": 1000, "S1": 1000, "S2": 995}); fmt.Sprint(free) != fmt.Sprint(want) {
		t.Fatalf("the service's free seats by section: %v, want %v", free, want)
	}

	tab := newTab(t, browser)
	signIn(t, tab, cs, cs.reader)
	open(t, tab, "#/shows/"+show)
	// sections lists the sections that sel finds, as "NAME=FREE ...".
	sections := func(sel string) string {
		return fmt.Sprintf(`[...document.querySelectorAll(%q)].map((a) => a.dataset.section + '=' + a.dataset.free).join(' ')`, sel)
	}
	for _, sel := range []string{"#section-list a[data-section]", "#sections svg a[data-section]"} {
		if got := eval[string](t, tab, sections(sel)); got != "S0=1000 S1=1000 S2=995" {
			t.Errorf("%s: %q, want every section with the service's free count", sel, got)
		}
	}
	if got := eval[string](t, tab, `document.querySelector('#section-list a[data-section="S2"]').parentElement.textContent`); got != "S2 995 of 1,000 free" {
		t.Errorf("the S2 link reads %q", got)
	}
	seatReads := `performance.getEntriesByType('resource').map((e) => e.name).filter((u) => u.includes('/seats'))`
	if n := eval[int](t, tab, `document.querySelectorAll('#seatmap [data-seat]').length + `+seatReads+`.length`); n != 0 {
		t.Errorf("before a section is chosen: %d seats drawn or seat pages read, want none", n)
	}
	if got := eval[string](t, tab, `document.getElementById('seat-totals').textContent`); got != "2,995 free, 5 held, 0 booked, 0 blocked" {
		t.Errorf("the totals: %q", got)
	}
	shot(t, tab, "show-sections")

	// The keyboard chooses S2: its seats, and only they, are read and drawn.
	do(t, tab, "choose S2 with the keyboard", chromedp.Focus(chromedp.CSS(`#section-list a[data-section="S2"]`)), chromedp.KeyEvent(kb.Enter))
	drawn := func(section string) string {
		return fmt.Sprintf(`document.getElementById('main').dataset.ready === 'true' && document.querySelectorAll('#seatmap [data-seat]').length === 1000 && `+
			`[...document.querySelectorAll('#seatmap [data-seat]')].every((c) => c.dataset.seat.startsWith(%q))`, section+"/")
	}
	untilTrue(t, tab, "the 1,000 seats of S2", `location.hash === '#/shows/stadium-ui/S2' && `+drawn("S2"))
	if n := eval[int](t, tab, `document.querySelectorAll('#seatmap circle.seat-held').length`); n != 5 {
		t.Errorf("S2 shows %d held seats, want 5", n)
	}
	if !eval[bool](t, tab, `((r) => r.length > 0 && r.every((u) => u.includes('section=S2')))(`+seatReads+`)`) {
		t.Errorf("seat pages read: %s, want those of S2 only", eval[string](t, tab, seatReads+`.join(' ')`))
	}
	if got := eval[string](t, tab, `document.querySelector('#section-list a[aria-current]')?.dataset.section`); got != "S2" {
		t.Errorf("the section marked current: %q, want S2", got)
	}
	shot(t, tab, "show-section")

	// A hold in S2 recolours its seat; one in S0, which is not drawn,
	// changes only the counts. Both move the counts table, the totals and
	// the sections' free counts.
	seat := `document.querySelector('#seatmap [data-seat="S2/R10/20"]')`
	if got := eval[string](t, tab, seat+`.getAttribute('class')`); got != "seat seat-free" {
		t.Fatalf("S2/R10/20 before the hold: %q", got)
	}
	h := hold("S2/R10/20")
	hold("S0/R00/1")
	untilTrue(t, tab, "S2/R10/20 to show held", seat+`.getAttribute('class') === 'seat seat-held'`)
	cell := func(section, status string) string {
		return fmt.Sprintf(`document.querySelector('#seat-counts tr[data-section=%q][data-category=""] td[data-status=%q]')?.textContent`, section, status)
	}
	untilTrue(t, tab, "the counts to follow the holds", cell("S2", "held")+` === '6' && `+cell("S2", "free")+` === '994' && `+
		cell("S0", "held")+` === '1' && `+cell("S0", "free")+` === '999' && document.getElementById('seat-totals').dataset.held === '7'`)
	untilTrue(t, tab, "the sections' free counts to follow", sections("#section-list a[data-section]")+` === 'S0=999 S1=1000 S2=994'`)
	if n := eval[int](t, tab, `document.querySelectorAll('#seatmap [data-seat^="S0/"]').length`); n != 0 {
		t.Errorf("the hold in S0 drew %d of its seats", n)
	}
	if _, err := cs.api.ReleaseHold(t.Context(), h.ID, nil); err != nil {
		t.Fatal(err)
	}
	untilTrue(t, tab, "S2/R10/20 to show free again", seat+`.getAttribute('class') === 'seat seat-free' && `+cell("S2", "free")+` === '995'`)

	// The mouse chooses S0 on the picture of the sections.
	do(t, tab, "click S0", chromedp.Click(chromedp.CSS(`#sections svg a[data-section="S0"] rect`)))
	untilTrue(t, tab, "the 1,000 seats of S0", `location.hash === '#/shows/stadium-ui/S0' && `+drawn("S0"))
	if n := eval[int](t, tab, `document.querySelectorAll('#seatmap circle.seat-held').length`); n != 1 {
		t.Errorf("S0 shows %d held seats, want 1", n)
	}
}

// TestConsoleRooms follows a waiting room in front of a show on the rooms
// page and the room's page: its queue while the stock is all held, the
// admissions the service makes once it is free, up to the active limit,
// and the room closed, refused a second opening while another room stands
// in front of the show, and opened again into a sale that sold out.
func TestConsoleRooms(t *testing.T) {
	t.Parallel()
	cs := startConsoleService(t)
	browser := newBrowser(t)
	const show, room = "room-ui", "onsale"
	putArena(t, cs.api, show, 1, 2, 10) // 20 seats
	holdAll := func() stockade.Hold {
		t.Helper()
		h, err := cs.api.HoldSeats(t.Context(), stockade.HoldRequest{ShowID: show, Best: []stockade.BestSeats{{Quantity: 20, AllowSplit: true}}, TTL: 10 * time.Minute}, nil)
		if err != nil {
			t.Fatalf("hold every seat: %v", err)
		}
		return h
	}
	// Every seat is held before the room opens, so the room queues its
	// visitors and admits no one: it is paused for the stock.
	first := holdAll()
	if _, _, err := cs.api.CreateRoom(t.Context(), stockade.NewRoomRequest{ID: room, ShowID: show, ActiveLimit: 3, AdmitPerMinute: 120}, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		if _, err := cs.api.JoinRoom(t.Context(), stockade.JoinRequest{RoomID: room, VisitorID: fmt.Sprintf("visitor-%d", i)}); err != nil {
			t.Fatal(err)
		}
	}

	tab := newTab(t, browser)
	signIn(t, tab, cs, cs.admin)
	open(t, tab, "#/rooms")
	row := fmt.Sprintf(`document.querySelector('#room-rows tr[data-room=%q]')`, room)
	cell := func(figure string) string {
		return fmt.Sprintf(`%s?.querySelector('td[data-figure=%q]')?.textContent`, row, figure)
	}
	untilTrue(t, tab, "the room queueing 8, paused for the stock", row+`?.dataset.status === 'queueing' && `+row+`.dataset.queued === '8' && `+
		row+`.dataset.admitted === '0' && `+cell("paused")+` === 'stock promised or held' && `+cell("free")+` === '0' && `+cell("held")+` === '20'`)
	if got := eval[string](t, tab, `[...document.querySelectorAll('main thead th[scope=col]')].map((th) => th.textContent).join('|')`); got !=
		"Room|In front of|Status|Queued|Active / limit|Admitted|Admitted / min|Longest wait|Paused|Stock free|Stock held" {
		t.Errorf("the rooms table's headers: %q", got)
	}
	if got := eval[string](t, tab, row+`.querySelector('td:nth-child(2) a').getAttribute('href')`); got != "#/shows/"+show {
		t.Errorf("the room is in front of %q, want a link to its show", got)
	}
	if got := eval[string](t, tab, `document.querySelector('nav a[aria-current=page]')?.textContent`); got != "Rooms" {
		t.Errorf("the navigation marks %q current", got)
	}
	shot(t, tab, "rooms-paused")

	// The seats come back: the service's admissions admit visitors up to
	// the active limit, and the page follows without a reload.
	if _, err := cs.api.ReleaseHold(t.Context(), first.ID, nil); err != nil {
		t.Fatal(err)
	}
	untilTrue(t, tab, "3 admitted, the active limit reached", row+`.dataset.admitted === '3' && `+row+`.dataset.active === '3' && `+
		row+`.dataset.queued === '5' && `+cell("active")+` === '3 / 3' && `+cell("paused")+` === 'active limit reached' && `+cell("free")+` === '20'`)
	// Admitted / min counts the admissions of the minute the page has
	// read, less than a minute here: at least 3.
	untilTrue(t, tab, "3 admitted in the minute", row+`.dataset.rate === '3' && `+cell("rate")+` === '≥3 of 120'`)
	v, err := cs.api.Room(t.Context(), room)
	if err != nil {
		t.Fatal(err)
	}
	if v.Admitted != 3 || v.Active != 3 || v.Queued != 5 || v.Paused != stockade.RoomPausedActive {
		t.Fatalf("the API's room: admitted %d, active %d, queued %d, paused %q; the page shows 3, 3, 5, active_limit", v.Admitted, v.Active, v.Queued, v.Paused)
	}
	if got, want := eval[string](t, tab, cell("wait")), fmt.Sprintf("%ds", int(v.LongestWait.Seconds())); got != want {
		t.Errorf("the longest wait reads %q, want %q", got, want)
	}
	shot(t, tab, "rooms")

	// The room's page, opened from its row: the same figures, the
	// settings, and a button to close it, for an admin only.
	listReads := `performance.getEntriesByType('resource').filter((e) => e.name.includes('/v1/rooms?')).length`
	roomReads := fmt.Sprintf(`performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/v1/rooms/%s')).length`, room)
	do(t, tab, "open the room", chromedp.Click(chromedp.CSS(fmt.Sprintf(`#room-rows tr[data-room=%q] a[href="#/rooms/%s"]`, room, room))))
	untilTrue(t, tab, "the room's page", fmt.Sprintf(`location.hash === '#/rooms/%s' && document.getElementById('main').dataset.ready === 'true'`, room)+
		` && document.getElementById('room')?.dataset.admitted === '3' && document.getElementById('room-queued').textContent === '5'`)
	// The list stops reading when it is left: while the room's page reads
	// its room three times more, the list is not read again.
	before, reads := eval[int](t, tab, listReads), eval[int](t, tab, roomReads)
	untilTrue(t, tab, "three more reads of the room", fmt.Sprintf(`%s >= %d`, roomReads, reads+3))
	if n := eval[int](t, tab, listReads); n != before {
		t.Errorf("the rooms list was read %d times after it was left", n-before)
	}
	for setting, want := range map[string]string{"order": "arrival", "active_limit": "3", "admit_per_minute": "120",
		"per_visitor": "1 seat or place", "stock_factor": "1 × the stock left", "admission_ttl": "10m"} {
		if got := eval[string](t, tab, fmt.Sprintf(`document.querySelector('#room-settings [data-setting=%q]')?.textContent`, setting)); got != want {
			t.Errorf("setting %s reads %q, want %q", setting, got, want)
		}
	}
	for id, want := range map[string]string{"room-active": "3 / 3", "room-admitted": "3", "room-paused": "active limit reached", "room-free": "20", "room-joined": "8"} {
		if got := eval[string](t, tab, fmt.Sprintf(`document.getElementById(%q).textContent`, id)); got != want {
			t.Errorf("#%s reads %q, want %q", id, got, want)
		}
	}
	controls := `document.querySelectorAll('main button[data-action]').length`
	reader := newTab(t, browser)
	signIn(t, reader, cs, cs.reader)
	open(t, reader, "#/rooms/"+room)
	if n := eval[int](t, reader, controls); n != 0 {
		t.Errorf("a reader sees %d buttons on the room's page", n)
	}
	shot(t, reader, "room-reader")

	// Closed from the page, after a confirmation.
	status := `document.getElementById('room').dataset.status`
	do(t, tab, "close the room",
		chromedp.Click(chromedp.CSS(`main button[data-action=close]`)),
		chromedp.WaitVisible(chromedp.CSS(`dialog[open] button[value=ok]`)),
		chromedp.Click(chromedp.CSS(`dialog[open] button[value=ok]`)))
	untilTrue(t, tab, "the room closed", status+` === 'closed' && document.getElementById('room-status').textContent === 'closed' && `+
		`document.querySelector('main button[data-action=open]') !== null && `+controls+` === 1`)
	if v, err := cs.api.Room(t.Context(), room); err != nil || v.Status != stockade.RoomClosed {
		t.Fatalf("after closing it from the page: %q, %v", v.Status, err)
	}
	shot(t, tab, "room-closed")

	// Another room now stands in front of the show: the service refuses
	// to open this one again, and the page says why.
	if _, _, err := cs.api.CreateRoom(t.Context(), stockade.NewRoomRequest{ID: room + "-2", ShowID: show, ActiveLimit: 3, AdmitPerMinute: 120}, nil); err != nil {
		t.Fatal(err)
	}
	openAgain := func() {
		t.Helper()
		do(t, tab, "open the room again",
			chromedp.Click(chromedp.CSS(`main button[data-action=open]`)),
			chromedp.WaitVisible(chromedp.CSS(`dialog[open] button[value=ok]`)),
			chromedp.Click(chromedp.CSS(`dialog[open] button[value=ok]`)))
	}
	openAgain()
	untilTrue(t, tab, "the refusal", `document.getElementById('notice').dataset.kind === 'error' && `+
		fmt.Sprintf(`document.getElementById('notice').textContent.includes('already stands in front of show "%s"')`, show))
	// It stays through the page's next reads.
	reads = eval[int](t, tab, roomReads)
	untilTrue(t, tab, "two more reads of the room", fmt.Sprintf(`%s >= %d`, roomReads, reads+2))
	if !eval[bool](t, tab, `!document.getElementById('notice').hidden && `+status+` === 'closed'`) {
		t.Errorf("after the refusal and two reads: the notice is hidden, or the room is %s", eval[string](t, tab, status))
	}
	shot(t, tab, "room-refused")

	// With both rooms closed the show sells out without an admission;
	// opened again, the room finds nothing free or held and is sold out.
	closed := stockade.RoomClosed
	if _, err := cs.api.UpdateRoom(t.Context(), room+"-2", stockade.RoomUpdate{Status: &closed}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.api.ConfirmHold(t.Context(), holdAll().ID, nil); err != nil {
		t.Fatal(err)
	}
	openAgain()
	untilTrue(t, tab, "the room sold out", status+` === 'sold_out' && document.getElementById('room-status').textContent === 'sold out' && `+
		`document.getElementById('room-status').classList.contains('s-sold_out') && document.getElementById('room-sold-out-at') !== null && `+
		`document.querySelector('main button[data-action=open]') !== null`)
	if v, err := cs.api.Room(t.Context(), room); err != nil || v.Status != stockade.RoomSoldOut {
		t.Fatalf("after opening it again: %q, %v; want sold_out", v.Status, err)
	}
	shot(t, tab, "room-sold-out")
	open(t, tab, "#/rooms")
	untilTrue(t, tab, "the list to mark it sold out", row+`?.classList.contains('sold-out') && `+row+`.querySelector('.status').textContent === 'sold out' && `+
		fmt.Sprintf(`document.querySelector('#room-rows tr[data-room="%s-2"]')?.dataset.status === 'closed'`, room))
	shot(t, tab, "rooms-sold-out")

	// Neither page scrolls sideways at a phone's width.
	do(t, tab, "resize", chromedp.EmulateViewport(390, 844))
	for _, p := range []struct{ name, hash string }{{"rooms-phone", "#/rooms"}, {"room-phone", "#/rooms/" + room}} {
		open(t, tab, p.hash)
		if w := eval[int](t, tab, `document.documentElement.scrollWidth`); w > 391 {
			t.Errorf("%s at 390 px wide scrolls sideways: %d px", p.hash, w)
		}
		shot(t, tab, p.name)
	}
}

// TestConsoleRelayLag: the overview shows the relay's lag when serve
// relays events (here to Kafka, refusing writes, so that the lag grows),
// and not without -events.
func TestConsoleRelayLag(t *testing.T) {
	t.Parallel()
	k := testkit.NewKafka(t, nil)
	k.RefuseWrites(true)
	cs := startConsoleService(t, "-events", k.URL())
	plain := startConsoleService(t)
	browser := newBrowser(t)
	stockUpWidget(t, cs.api, 10)

	tab := newTab(t, browser)
	signIn(t, tab, cs, cs.admin)
	open(t, tab, "#/")
	// /metrics is read every 5 s; the lag is of the stock's events, which
	// the brokers refuse.
	untilTrue(t, tab, "a lag of a second or more", `(() => {
		const card = document.getElementById('relay-card');
		return card && !card.hidden && / s$/.test(document.getElementById('relay-lag').textContent);
	})()`)
	shot(t, tab, "overview-relay-lag")

	other := newTab(t, browser)
	signIn(t, other, plain, plain.admin)
	open(t, other, "#/")
	untilTrue(t, other, "the overview's p99", `document.getElementById('p99').textContent !== '–'`)
	if eval[bool](t, other, `document.getElementById('relay-card').hidden`) == false {
		t.Error("the relay's lag shows on a service without -events")
	}
}
