package objstore

// The helper protocol: JSON values, one per line, on the helper's standard
// input (requests) and output (replies). The helper first writes a hello
// carrying the protocol version and, when the bucket could not be opened,
// the error; then it answers each request in order until its input closes.

// protocolVersion changes whenever a message changes meaning, so that a
// driftdeck and a helper of different releases refuse each other plainly.
const protocolVersion = 1

type hello struct {
	Protocol int    `json:"protocol"`
	Error    string `json:"error,omitempty"`
}

type request struct {
	Op        string `json:"op"` // read, write, delete, list
	Key       string `json:"key,omitempty"`
	Body      []byte `json:"body,omitempty"`
	Prefix    string `json:"prefix,omitempty"`
	Delimiter string `json:"delimiter,omitempty"`
}

type reply struct {
	Body     []byte   `json:"body,omitempty"`
	Objects  []Object `json:"objects,omitempty"`
	Error    string   `json:"error,omitempty"`
	NotFound bool     `json:"notFound,omitempty"`
}
