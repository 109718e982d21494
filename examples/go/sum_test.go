// The go tool builds each test binary, then runs it through -exec, confined
// by policy.json. GOFLAGS splits on spaces, so -exec gets one word: a
// wrapper that `sharness-exec wrap` writes once, outside the policy's write
// paths (here /tmp/examples, where the suite builds), with the policy's
// absolute path and its pinned hash in it:
//
// $ mkdir -p ~/.local/bin && sharness-exec wrap -o ~/.local/bin/sum-go-test -p "$PWD/policy.json" -H sha256:1e90dd9d5603d8fae2be0bfb0e0f4121e181f9404304fd55dfe5e9d8b5848e17 && GOFLAGS=-exec=$HOME/.local/bin/sum-go-test go test -v ./...
//
// After changing policy.json, pin its new hash (sharness-exec hash
// policy.json) and write the wrapper again.
package sum

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestSum(t *testing.T) {
	if got := Sum(1, 2, 3, 36); got != 42 {
		t.Fatalf("Sum(1, 2, 3, 36) = %d, want 42", got)
	}
}

// A canary for the confinement itself: the policy gives no access to
// $HOME, so creating a file there must fail: it does not exist in the view
// (ENOENT), or Landlock alone refuses it (EACCES).
func TestCannotWriteHome(t *testing.T) {
	home := os.Getenv("HOME")
	if home == "" {
		t.Fatal("HOME is not set")
	}
	path := filepath.Join(home, ".sharness-exec-canary")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		f.Close()
		os.Remove(path)
		t.Fatalf("created %s: this suite is not confined", path)
	}
	if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("%v (expected no such file or permission denied)", err)
	}
}
