// Command driftdeck-state reads and writes Pulumi state buckets on S3,
// Google Cloud Storage and Azure Blob Storage for driftdeck, which runs it
// when a user opens such a bucket (to show a stack's locks and pending
// operations, or to repair them). It keeps those storage SDKs out of
// driftdeck's own memory; it is not meant to be run by hand.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/driftdeck/driftdeck/backend/pulumistate/objstore"

	_ "gocloud.dev/blob/azureblob"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/s3blob"
)

const usage = `usage: driftdeck-state serve BUCKET-URL

driftdeck runs this helper to read and repair Pulumi state buckets
(s3://, gs://, azblob://, file://): it answers requests on standard input
with replies on standard output. It is not meant to be run by hand.
`

func main() {
	if len(os.Args) != 3 || os.Args[1] != "serve" {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	// driftdeck ends the helper by closing its input; an interrupt meant for
	// driftdeck's terminal must not cut a write short.
	signal.Ignore(os.Interrupt)
	url := os.Args[2]
	err := objstore.Serve(context.Background(), os.Stdin, os.Stdout, func(ctx context.Context) (objstore.Store, error) {
		return objstore.OpenBucket(ctx, url)
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "driftdeck-state: %v\n", err)
		os.Exit(1)
	}
}
