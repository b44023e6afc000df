package tofu

import "testing"

func TestDriftSummaryNamesTofusCountAndTheResources(t *testing.T) {
	text := `
Note: Objects have changed outside of OpenTofu

  # aws_iam_role.readonly has changed
  ~ resource "aws_iam_role" "readonly" {
    }

OpenTofu will perform the following actions:

  # aws_iam_role.readonly will be updated in-place
  ~ resource "aws_iam_role" "readonly" {
    }

  # module.edge.aws_route53_record.www["app example"] will be destroyed
  # (because module.edge.aws_route53_record.www["app example"] is not in configuration)
  - resource "aws_route53_record" "www" {
    }

  # aws_s3_bucket.logs must be replaced
-/+ resource "aws_s3_bucket" "logs" {
    }

  # aws_sqs_queue.jobs will be created
  + resource "aws_sqs_queue" "jobs" {
    }

Plan: 2 to add, 1 to change, 2 to destroy.
`
	want := `Plan: 2 to add, 1 to change, 2 to destroy. aws_iam_role.readonly (changed outside), module.edge.aws_route53_record.www["app example"], aws_s3_bucket.logs and 1 more`
	if got := DriftSummary(text); got != want {
		t.Errorf("summary\n%s\nwant\n%s", got, want)
	}
	if got := DriftSummary("Drift detected.\nnot available"); got != "" {
		t.Errorf("a message with no plan: %q, want none (the condition's own words are shown)", got)
	}
}
