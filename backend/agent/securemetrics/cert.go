package securemetrics

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// TLSConfig is the server's TLS: the certificate and key of certDir
// (tls.crt, tls.key, as a kubernetes.io/tls Secret mounts them), read again
// when they change on disk, or, without certDir, a self-signed one made
// now (Prometheus then scrapes with insecureSkipVerify, as it does
// controller-runtime's default).
func TLSConfig(certDir string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if certDir == "" {
		cert, err := selfSigned()
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{cert}
		return cfg, nil
	}
	crt, key := filepath.Join(certDir, "tls.crt"), filepath.Join(certDir, "tls.key")
	if _, err := tls.LoadX509KeyPair(crt, key); err != nil {
		return nil, fmt.Errorf("--metrics-cert-dir %s: %w", certDir, err)
	}
	r := &reloader{crt: crt, key: key}
	cfg.GetCertificate = r.get
	return cfg, nil
}

// reloader serves the key pair on disk, read again when its files change
// (a rotated Secret).
type reloader struct {
	crt, key string
	mu       sync.Mutex
	mod      time.Time
	cert     *tls.Certificate
}

func (r *reloader) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	st, err := os.Stat(r.crt)
	if err != nil {
		return nil, err
	}
	if r.cert == nil || st.ModTime().After(r.mod) {
		c, err := tls.LoadX509KeyPair(r.crt, r.key)
		if err != nil {
			return nil, err
		}
		r.cert, r.mod = &c, st.ModTime()
	}
	return r.cert, nil
}

func selfSigned() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return tls.Certificate{}, err
	}
	host, _ := os.Hostname()
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: "driftdeck-agent"},
		DNSNames: []string{"driftdeck-agent", "localhost", host}, NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().AddDate(1, 0, 0),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
