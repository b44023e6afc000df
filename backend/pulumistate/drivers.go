package pulumistate

// The blob drivers of the DIY backends pulumi supports: file://, s3://,
// gs:// and azblob://. They bring in the AWS, Google Cloud and Azure SDKs.
import (
	_ "gocloud.dev/blob/azureblob"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/s3blob"
)
