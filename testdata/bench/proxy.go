package main

import (
	"net"
	"sync"
	"time"
)

// slowProxy forwards TCP connections to a target, every chunk delivered a
// fixed latency after it was read in each direction (in order, the
// throughput untouched): a cluster far away or behind a congested link.
// TLS passes through it unchanged.
type slowProxy struct {
	ln      net.Listener
	target  string
	latency time.Duration
	wg      sync.WaitGroup
}

func startSlowProxy(target string, latency time.Duration) (*slowProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &slowProxy{ln: ln, target: target, latency: latency}
	p.wg.Go(p.accept)
	return p, nil
}

// Addr is where clients connect.
func (p *slowProxy) Addr() string { return p.ln.Addr().String() }

// Close stops accepting; open connections end with their peers.
func (p *slowProxy) Close() error {
	err := p.ln.Close()
	p.wg.Wait()
	return err
}

func (p *slowProxy) accept() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		go func() {
			out, err := net.Dial("tcp", p.target)
			if err != nil {
				in.Close()
				return
			}
			go p.pipe(out, in)
			p.pipe(in, out)
		}()
	}
}

// pipe copies from src to dst, each chunk held back by the latency.
func (p *slowProxy) pipe(dst, src net.Conn) {
	type chunk struct {
		data []byte
		due  time.Time
	}
	queue := make(chan chunk, 1024)
	go func() {
		defer close(queue)
		for {
			buf := make([]byte, 32*1024)
			n, err := src.Read(buf)
			if n > 0 {
				queue <- chunk{buf[:n], time.Now().Add(p.latency)}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range queue {
		time.Sleep(time.Until(c.due))
		if _, err := dst.Write(c.data); err != nil {
			break
		}
	}
	for range queue { // let the reader finish
	}
	_ = closeWrite(dst)
}

func closeWrite(c net.Conn) error {
	if tc, ok := c.(*net.TCPConn); ok {
		return tc.CloseWrite()
	}
	return c.Close()
}
