package demo

// iamRolesDrift is what tofu-controller's drift detection left in
// iam-roles' Ready condition: `tofu show -no-color` of its drift plan. A
// session length raised by hand in the console shows as changed outside
// OpenTofu; the plan reverts it, drops the admin policy someone attached
// to ci-deploy and adds the ECR policy the last commit asked for.
const iamRolesDrift = `
Note: Objects have changed outside of OpenTofu

OpenTofu detected the following changes made outside of OpenTofu since the
last "tofu apply" which may have affected this plan:

  # aws_iam_role.readonly has changed
  ~ resource "aws_iam_role" "readonly" {
        id                    = "readonly"
      ~ max_session_duration  = 3600 -> 43200
        name                  = "readonly"
        # (9 unchanged attributes hidden)
    }


Unless you have made equivalent changes to your configuration, or ignored the
relevant attributes using ignore_changes, the following plan may include
actions to undo or respond to these changes.

─────────────────────────────────────────────────────────────────────────────

OpenTofu used the selected providers to generate the following execution
plan. Resource actions are indicated with the following symbols:
  + create
  ~ update in-place

OpenTofu will perform the following actions:

  # aws_iam_role.ci_deploy will be updated in-place
  ~ resource "aws_iam_role" "ci_deploy" {
        id                    = "ci-deploy"
      ~ managed_policy_arns   = [
          - "arn:aws:iam::aws:policy/AdministratorAccess",
            "arn:aws:iam::123456789012:policy/ci-deploy",
        ]
        name                  = "ci-deploy"
        # (8 unchanged attributes hidden)
    }

  # aws_iam_role.readonly will be updated in-place
  ~ resource "aws_iam_role" "readonly" {
        id                    = "readonly"
      ~ max_session_duration  = 43200 -> 3600
        name                  = "readonly"
        # (9 unchanged attributes hidden)
    }

  # aws_iam_role_policy.ci_deploy will be created
  + resource "aws_iam_role_policy" "ci_deploy" {
      + id     = (known after apply)
      + name   = "ci-deploy-ecr"
      + policy = jsonencode(
            {
              + Statement = [
                  + {
                      + Action   = "ecr:GetAuthorizationToken"
                      + Effect   = "Allow"
                      + Resource = "*"
                    },
                ]
              + Version   = "2012-10-17"
            }
        )
      + role   = "ci-deploy"
    }

Plan: 1 to add, 2 to change, 0 to destroy.
`
