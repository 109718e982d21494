package sum

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// A suite that starts its own servers: with "network": "none" the run has a
// loopback of its own, where httptest listens on 127.0.0.1 and nothing
// outside can be reached.
func sumHandler(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, "sum=%d", Sum(40, 2))
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

func TestLocalServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(sumHandler))
	defer srv.Close()
	if got := get(t, srv.URL); got != "sum=42" {
		t.Fatalf("GET %s = %q, want \"sum=42\"", srv.URL, got)
	}
}

func TestLocalServerIPv6(t *testing.T) {
	l, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(sumHandler))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	defer srv.Close()
	if got := get(t, srv.URL); got != "sum=42" {
		t.Fatalf("GET %s = %q, want \"sum=42\"", srv.URL, got)
	}
}
