// svid-check: the session certificates of tests/launch/svid.bats, read by Go's
// strict DER parser (crypto/x509) and used for mutual TLS on a loopback
// port the kernel picks. Standard library only, built offline. Prints one
// "ok: ..." line a check and exits 0; the first failure is one line on
// stderr and exit 1; 2 on usage errors.
//
//	svid-check leaf CA.pem LEAF.pem URI LIFETIME  the profile of one leaf and its CA
//	svid-check foreign CA.pem LEAF.pem            LEAF does not verify under CA
//	svid-check mtls CA.pem A URI_A B URI_B        A serves, B connects, each
//	                                              expecting the other's URI SAN
//	svid-check impostor CA.pem A URI_A B          B serves with its valid
//	                                              certificate to a client that
//	                                              expects A: refused by URI SAN
//	svid-check serve PORT ROLE                    a launch's role (tests/launch/launch-run.bats):
//	                                              serves on 127.0.0.1:PORT with
//	                                              $SHARNESS_AI_CERT, _KEY and _CA,
//	                                              to clients of its session's ROLE
//	svid-check connect PORT ROLE                  connects as the same, to a
//	                                              server of its session's ROLE
package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

func fail(format string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, "svid-check: "+format+"\n", a...)
	os.Exit(1)
}

// certFile: the one CERTIFICATE in PATH, parsed.
func certFile(path string) *x509.Certificate {
	text, err := os.ReadFile(path)
	if err != nil {
		fail("%v", err)
	}
	block, rest := pem.Decode(text)
	if block == nil || block.Type != "CERTIFICATE" || len(bytes.TrimSpace(rest)) != 0 {
		fail("%s: not one PEM CERTIFICATE", path)
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		fail("%s: %v", path, err)
	}
	return c
}

func pool(c *x509.Certificate) *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(c)
	return p
}

// common: what every certificate of a session holds.
func common(name string, c *x509.Certificate) {
	if c.Version != 3 || c.SignatureAlgorithm != x509.ECDSAWithSHA256 {
		fail("%s: version %d, %v: want v3, ecdsa-with-SHA256", name, c.Version, c.SignatureAlgorithm)
	}
	if c.SerialNumber.Sign() <= 0 || c.SerialNumber.BitLen() > 128 || c.SerialNumber.BitLen() <= 120 {
		fail("%s: serial %v is not 16 positive random bytes", name, c.SerialNumber)
	}
	k, ok := c.PublicKey.(*ecdsa.PublicKey)
	if !ok || k.Curve != elliptic.P256() {
		fail("%s: not a P-256 key", name)
	}
	if len(c.URIs) != 1 || len(c.EmailAddresses) != 0 {
		fail("%s: %d URI SANs and email addresses: want exactly one URI SAN", name, len(c.URIs))
	}
	if !c.BasicConstraintsValid {
		fail("%s: no basicConstraints", name)
	}
}

// critical: the names of the extensions C marks critical, in order.
func critical(c *x509.Certificate) string {
	names := map[string]string{"2.5.29.19": "basicConstraints", "2.5.29.15": "keyUsage",
		"2.5.29.17": "subjectAltName"}
	var out []string
	for _, e := range c.Extensions {
		if e.Critical {
			out = append(out, names[e.Id.String()])
		}
	}
	return strings.Join(out, " ")
}

func checkLeaf(caPath, leafPath, uri, lifetime string) {
	ca, leaf := certFile(caPath), certFile(leafPath)
	secs, err := strconv.Atoi(lifetime)
	if err != nil {
		fail("lifetime %q: %v", lifetime, err)
	}
	common("CA", ca)
	session := uri[:strings.LastIndex(uri, "/")]
	if !ca.IsCA || ca.MaxPathLen != 0 || !ca.MaxPathLenZero ||
		ca.KeyUsage != x509.KeyUsageCertSign|x509.KeyUsageCRLSign || len(ca.ExtKeyUsage) != 0 ||
		len(ca.SubjectKeyId) != 20 || ca.URIs[0].String() != session {
		fail("CA: not cA TRUE pathLen 0, keyCertSign and cRLSign, a key id, URI %s", session)
	}
	if len(ca.DNSNames)+len(ca.IPAddresses) != 0 {
		fail("CA: host names or addresses %v %v: want none", ca.DNSNames, ca.IPAddresses)
	}
	if got := critical(ca); got != "basicConstraints keyUsage" {
		fail("CA: critical: %q, want basicConstraints and keyUsage", got)
	}
	fmt.Printf("ok: CA %s: cA, pathLen 0, keyCertSign cRLSign, subject key id\n", ca.URIs[0])
	common("leaf", leaf)
	if leaf.IsCA || leaf.KeyUsage != x509.KeyUsageDigitalSignature ||
		len(leaf.ExtKeyUsage) != 2 || leaf.ExtKeyUsage[0] != x509.ExtKeyUsageServerAuth ||
		leaf.ExtKeyUsage[1] != x509.ExtKeyUsageClientAuth ||
		!bytes.Equal(leaf.AuthorityKeyId, ca.SubjectKeyId) || len(leaf.Subject.Names) != 0 {
		fail("leaf: not cA FALSE, digitalSignature, serverAuth and clientAuth, the CA's key id, empty subject")
	}
	if got := critical(leaf); got != "basicConstraints keyUsage subjectAltName" {
		fail("leaf: critical: %q, want basicConstraints, keyUsage and subjectAltName", got)
	}
	if leaf.URIs[0].String() != uri || leaf.URIs[0].Scheme != "spiffe" {
		fail("leaf: URI SAN %s, want %s", leaf.URIs[0], uri)
	}
	// beside it, the role and localhost as host names, the loopback's addresses
	role := uri[strings.LastIndex(uri, "/")+1:]
	if got := fmt.Sprint(leaf.DNSNames, leaf.IPAddresses); got != fmt.Sprint([]string{role, "localhost"},
		[]string{"127.0.0.1", "::1"}) {
		fail("leaf: host names and addresses %s, want [%s localhost] [127.0.0.1 ::1]", got, role)
	}
	for _, host := range []string{role, "localhost", "127.0.0.1", "::1"} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool(ca), DNSName: host}); err != nil {
			fail("leaf: as %s: %v", host, err)
		}
	}
	if got := leaf.NotAfter.Sub(leaf.NotBefore); got != time.Duration(secs+60)*time.Second ||
		!leaf.NotBefore.Equal(ca.NotBefore) || !leaf.NotAfter.Equal(ca.NotAfter) {
		fail("leaf: valid for %v (%v to %v), want %ds + 60s, as its CA", got, leaf.NotBefore, leaf.NotAfter, secs)
	}
	for _, u := range []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool(ca), KeyUsages: []x509.ExtKeyUsage{u}}); err != nil {
			fail("leaf: %v", err)
		}
	}
	fmt.Printf("ok: leaf %s: verifies under the CA for serverAuth and clientAuth, as %s, localhost, 127.0.0.1 and ::1\n", uri, role)
}

func checkForeign(caPath, leafPath string) {
	ca, leaf := certFile(caPath), certFile(leafPath)
	_, err := leaf.Verify(x509.VerifyOptions{Roots: pool(ca)})
	var unknown x509.UnknownAuthorityError
	if !errors.As(err, &unknown) {
		fail("a leaf of another CA: %v, want an unknown authority", err)
	}
	fmt.Printf("ok: %s is refused under another session's CA: %v\n", leaf.URIs[0], err)
}

// uriMismatch: a valid chain whose leaf is not the peer expected.
type uriMismatch struct{ got, want string }

func (e *uriMismatch) Error() string { return "URI SAN is " + e.got + ", want " + e.want }

// peer: TLS's check of the peer, as a SPIFFE peer does it: the chain
// under the session CA alone, for USAGE, then exactly one URI SAN, WANT.
// Host names play no part here.
func peer(roots *x509.CertPool, want string, usage x509.ExtKeyUsage, seen *error) func([][]byte, [][]*x509.Certificate) error {
	return func(raw [][]byte, _ [][]*x509.Certificate) error {
		*seen = func() error {
			if len(raw) == 0 {
				return errors.New("no certificate")
			}
			leaf, err := x509.ParseCertificate(raw[0])
			if err != nil {
				return err
			}
			if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{usage}}); err != nil {
				return err
			}
			if len(leaf.URIs) != 1 || leaf.URIs[0].String() != want {
				return &uriMismatch{fmt.Sprint(leaf.URIs), want}
			}
			return nil
		}()
		return *seen
	}
}

func pair(name string) tls.Certificate {
	c, err := tls.LoadX509KeyPair(name+".pem", name+".key")
	if err != nil {
		fail("%s: %v", name, err)
	}
	return c
}

// exchange: SERVER serves on a loopback port of the kernel's choosing and
// expects a client with URI CLIENTURI; CLIENT connects expecting SERVERURI.
// Returns what each side's check said, and the line the client read.
func exchange(roots *x509.CertPool, server tls.Certificate, clientURI string,
	client tls.Certificate, serverURI string) (serverSaw, clientSaw error, line string) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail("listen: %v", err)
	}
	defer l.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(time.Minute)) // against a hang only
		s := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{server},
			ClientAuth: tls.RequireAnyClientCert, MinVersion: tls.VersionTLS13,
			VerifyPeerCertificate: peer(roots, clientURI, x509.ExtKeyUsageClientAuth, &serverSaw)})
		if s.Handshake() == nil {
			buf := make([]byte, 64)
			n, _ := s.Read(buf)
			s.Write(append([]byte("pong to "), buf[:n]...))
		}
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		fail("dial: %v", err)
	}
	c.SetDeadline(time.Now().Add(time.Minute))
	// InsecureSkipVerify turns off the host-name check only: peer() checks
	// the chain itself, as SPIFFE peers do.
	t := tls.Client(c, &tls.Config{Certificates: []tls.Certificate{client},
		InsecureSkipVerify: true, MinVersion: tls.VersionTLS13,
		VerifyPeerCertificate: peer(roots, serverURI, x509.ExtKeyUsageServerAuth, &clientSaw)})
	if t.Handshake() == nil {
		t.Write([]byte("ping"))
		b, _ := io.ReadAll(t)
		line = string(b)
	}
	t.Close()
	<-done
	return
}

// session: this role's own pair and CA, from a launch's variables, and
// the URI of ROLE in its session.
func session(role string) (tls.Certificate, *x509.CertPool, string) {
	own, err := tls.LoadX509KeyPair(os.Getenv("SHARNESS_AI_CERT"), os.Getenv("SHARNESS_AI_KEY"))
	if err != nil {
		fail("own pair: %v", err)
	}
	leaf, err := x509.ParseCertificate(own.Certificate[0])
	if err != nil || len(leaf.URIs) != 1 {
		fail("own certificate: %v", err)
	}
	return own, pool(certFile(os.Getenv("SHARNESS_AI_CA"))), "spiffe://" + leaf.URIs[0].Host + "/" + role
}

// serve: for ever, each client of URI WANT gets "pong to " and what it sent.
func serve(port, role string) {
	own, roots, want := session(role)
	l, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		fail("listen: %v", err)
	}
	for {
		c, err := l.Accept()
		if err != nil {
			fail("accept: %v", err)
		}
		var saw error
		s := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{own},
			ClientAuth: tls.RequireAnyClientCert, MinVersion: tls.VersionTLS13,
			VerifyPeerCertificate: peer(roots, want, x509.ExtKeyUsageClientAuth, &saw)})
		if s.Handshake() == nil {
			buf := make([]byte, 64)
			n, _ := s.Read(buf)
			s.Write(append([]byte("pong to "), buf[:n]...))
		}
		s.Close()
	}
}

func connect(port, role string) {
	own, roots, want := session(role)
	c, err := net.Dial("tcp", "127.0.0.1:"+port)
	if err != nil {
		fail("dial: %v", err)
	}
	var saw error
	t := tls.Client(c, &tls.Config{Certificates: []tls.Certificate{own},
		InsecureSkipVerify: true, MinVersion: tls.VersionTLS13,
		VerifyPeerCertificate: peer(roots, want, x509.ExtKeyUsageServerAuth, &saw)})
	if err := t.Handshake(); err != nil {
		fail("a client expecting %s: %v", want, err)
	}
	t.Write([]byte("ping"))
	b, _ := io.ReadAll(t)
	fmt.Printf("ok: mutual TLS with %s: %q\n", want, string(b))
}

func main() {
	args := os.Args[1:]
	switch {
	case len(args) == 5 && args[0] == "leaf":
		checkLeaf(args[1], args[2], args[3], args[4])
	case len(args) == 3 && args[0] == "foreign":
		checkForeign(args[1], args[2])
	case len(args) == 6 && args[0] == "mtls":
		roots := pool(certFile(args[1]))
		srv, cli, line := exchange(roots, pair(args[2]), args[5], pair(args[4]), args[3])
		if srv != nil || cli != nil || line != "pong to ping" {
			fail("mutual TLS: server saw %v, client saw %v, read %q", srv, cli, line)
		}
		fmt.Printf("ok: mutual TLS between %s and %s: %q\n", args[3], args[5], line)
	case len(args) == 5 && args[0] == "impostor":
		roots := pool(certFile(args[1]))
		_, cli, line := exchange(roots, pair(args[4]), args[3], pair(args[2]), args[3])
		var m *uriMismatch
		if !errors.As(cli, &m) || line != "" {
			fail("a client expecting %s took %s's certificate: %v, read %q", args[3], args[4], cli, line)
		}
		fmt.Printf("ok: a client expecting %s refuses %s's valid certificate: %v\n", args[3], args[4], cli)
	case len(args) == 3 && args[0] == "serve":
		serve(args[1], args[2])
	case len(args) == 3 && args[0] == "connect":
		connect(args[1], args[2])
	default:
		fmt.Fprintln(os.Stderr, "usage: svid-check leaf|foreign|mtls|impostor|serve|connect ...")
		os.Exit(2)
	}
}
