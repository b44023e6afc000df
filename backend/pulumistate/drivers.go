package pulumistate

// file:// buckets are read in this process; the other schemes go through
// the driftdeck-state helper, which links their drivers.
import _ "gocloud.dev/blob/fileblob"
