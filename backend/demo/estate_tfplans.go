package demo

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/tfplan"
)

var configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// readablePlan stores a plan's readable form as tofu-controller does with
// spec.storeReadablePlan: human: `tofu show -no-color` of the saved plan in
// the ConfigMap tfplan-<workspace>-<name>, key tfplan, annotated with the
// plan id and labelled with the Terraform's name and workspace. (The saved
// plan's Secret is binary and read by nothing here, so it is not stored.)
func (e *estate) readablePlan(namespace, name, id, text string) {
	e.add(configMaps, map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": metadata(namespace, tfplan.ObjectName("default", name, ""), map[string]any{
			"uid":               e.uid("ConfigMap", namespace, name),
			"creationTimestamp": e.ago(0),
			"annotations":       map[string]any{tfplan.AnnotationSavedPlan: id},
			"labels":            map[string]any{tfplan.LabelPlanName: name, tfplan.LabelPlanWorkspace: "default"},
		}),
		"data": map[string]any{tfplan.DataKey: text},
	})
}

const planPreamble = `
OpenTofu used the selected providers to generate the following execution
plan. Resource actions are indicated with the following symbols:
`

// eksPlan is the pending plan of eks-cluster: a node group and a policy
// attachment added, an add-on upgraded, a rule that left the code destroyed.
const eksPlan = planPreamble + `  + create
  ~ update in-place
  - destroy

OpenTofu will perform the following actions:

  # aws_eks_addon.vpc_cni will be updated in-place
  ~ resource "aws_eks_addon" "vpc_cni" {
      ~ addon_version               = "v1.18.3-eksbuild.1" -> "v1.19.0-eksbuild.1"
        id                          = "prod-eu-1:vpc-cni"
        tags                        = {}
        # (9 unchanged attributes hidden)
    }

  # aws_eks_node_group.general["c"] will be created
  + resource "aws_eks_node_group" "general" {
      + ami_type               = "AL2023_x86_64_STANDARD"
      + arn                    = (known after apply)
      + capacity_type          = "ON_DEMAND"
      + cluster_name           = "prod-eu-1"
      + disk_size              = (known after apply)
      + id                     = (known after apply)
      + instance_types         = [
          + "m6i.xlarge",
        ]
      + node_group_name        = "general-c"
      + node_role_arn          = "arn:aws:iam::123456789012:role/prod-eu-1-node"
      + release_version        = (known after apply)
      + status                 = (known after apply)
      + subnet_ids             = [
          + "subnet-0c4e9a7d2b1f3e5a6",
        ]
      + tags_all               = {
          + "team" = "platform"
        }
      + version                = (known after apply)

      + scaling_config {
          + desired_size = 3
          + max_size     = 6
          + min_size     = 3
        }
    }

  # aws_iam_role_policy_attachment.node_ssm will be created
  + resource "aws_iam_role_policy_attachment" "node_ssm" {
      + id         = (known after apply)
      + policy_arn = "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"
      + role       = "prod-eu-1-node"
    }

  # aws_security_group_rule.legacy_ssh will be destroyed
  # (because aws_security_group_rule.legacy_ssh is not in configuration)
  - resource "aws_security_group_rule" "legacy_ssh" {
      - cidr_blocks       = [
          - "10.0.0.0/8",
        ] -> null
      - from_port         = 22 -> null
      - id                = "sgrule-2837461923" -> null
      - protocol          = "tcp" -> null
      - security_group_id = "sg-0a1b2c3d4e5f60718" -> null
      - self              = false -> null
      - to_port           = 22 -> null
      - type              = "ingress" -> null
    }

Plan: 2 to add, 1 to change, 1 to destroy.

Changes to Outputs:
  ~ node_groups = [
        "general-a",
        "general-b",
      + "general-c",
    ]
`

// vpcPlan is vpc-network's pending plan, made from the spec before its
// last edit.
const vpcPlan = planPreamble + `  + create
  ~ update in-place

OpenTofu will perform the following actions:

  # aws_nat_gateway.az["c"] will be created
  + resource "aws_nat_gateway" "az" {
      + allocation_id        = "eipalloc-0f3a9c2d1b4e5a6f7"
      + connectivity_type    = "public"
      + id                   = (known after apply)
      + network_interface_id = (known after apply)
      + private_ip           = (known after apply)
      + public_ip            = (known after apply)
      + subnet_id            = "subnet-0d5e6f7a8b9c0d1e2"
    }

  # aws_route_table.private["c"] will be created
  + resource "aws_route_table" "private" {
      + arn    = (known after apply)
      + id     = (known after apply)
      + route  = (known after apply)
      + vpc_id = "vpc-0123456789abcdef0"
    }

  # aws_route_table_association.private["c"] will be created
  + resource "aws_route_table_association" "private" {
      + id             = (known after apply)
      + route_table_id = (known after apply)
      + subnet_id      = "subnet-0d5e6f7a8b9c0d1e2"
    }

  # aws_vpc.main will be updated in-place
  ~ resource "aws_vpc" "main" {
        id                   = "vpc-0123456789abcdef0"
      ~ tags                 = {
          ~ "cost-center" = "platform" -> "network"
        }
        # (18 unchanged attributes hidden)
    }

Plan: 3 to add, 1 to change, 0 to destroy.
`

// dnsPlan is dns-records' plan: plan-only, never applied from here.
const dnsPlan = planPreamble + `  + create

OpenTofu will perform the following actions:

  # aws_route53_record.api will be created
  + resource "aws_route53_record" "api" {
      + allow_overwrite = (known after apply)
      + fqdn            = (known after apply)
      + id              = (known after apply)
      + name            = "api.prod.acme.example"
      + records         = [
          + "203.0.113.10",
        ]
      + ttl             = 300
      + type            = "A"
      + zone_id         = "Z0123456789ABCDEFGHIJ"
    }

  # aws_route53_record.status will be created
  + resource "aws_route53_record" "status" {
      + allow_overwrite = (known after apply)
      + fqdn            = (known after apply)
      + id              = (known after apply)
      + name            = "status.prod.acme.example"
      + records         = [
          + "statuspage.example.net",
        ]
      + ttl             = 300
      + type            = "CNAME"
      + zone_id         = "Z0123456789ABCDEFGHIJ"
    }

Plan: 2 to add, 0 to change, 0 to destroy.
`
