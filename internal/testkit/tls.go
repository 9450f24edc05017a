package testkit

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// tlsFiles are the PEM files a server presents on its TLS port: a
// certificate authority made for this server alone, and a certificate for
// 127.0.0.1 that it signed.
type tlsFiles struct {
	ca, cert, key string
	pool          *x509.CertPool // trusts ca
}

// certValidity is how long the certificates stay valid, from an hour
// before they are made (so that a clock a little behind still accepts
// them).
const certValidity = 7 * 24 * time.Hour

// writeTLSFiles makes the certificates and writes them into dir.
func writeTLSFiles(dir string) (*tlsFiles, error) {
	notBefore := time.Now().Add(-time.Hour)
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("testkit: TLS: %w", err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "testkit CA"},
		NotBefore:             notBefore,
		NotAfter:              notBefore.Add(certValidity),
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("testkit: TLS: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("testkit: TLS: %w", err)
	}

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("testkit: TLS: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    notBefore,
		NotAfter:     notBefore.Add(certValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("testkit: TLS: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("testkit: TLS: %w", err)
	}

	f := &tlsFiles{
		ca:   filepath.Join(dir, "ca.pem"),
		cert: filepath.Join(dir, "cert.pem"),
		key:  filepath.Join(dir, "key.pem"),
		pool: x509.NewCertPool(),
	}
	f.pool.AddCert(ca)
	for _, w := range []struct {
		path, typ string
		der       []byte
	}{
		{f.ca, "CERTIFICATE", caDER},
		{f.cert, "CERTIFICATE", der},
		{f.key, "PRIVATE KEY", keyDER},
	} {
		data := pem.EncodeToMemory(&pem.Block{Type: w.typ, Bytes: w.der})
		if err := os.WriteFile(w.path, data, 0o600); err != nil {
			return nil, fmt.Errorf("testkit: TLS: %w", err)
		}
	}
	return f, nil
}

// clientConfig returns a new client configuration that trusts only the
// server's certificate authority.
func (f *tlsFiles) clientConfig() *tls.Config {
	return &tls.Config{RootCAs: f.pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
}
