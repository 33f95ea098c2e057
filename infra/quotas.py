"""AWS quotas hookline runs inside, beyond Lambda's (infra/sizing.py): the figures docs/scaling.md quotes.

Pure constants, each from AWS's own documentation (named beside it); tests/unit/test_docs_facts.py checks the page
against them. Per account and region, at their defaults.
"""

from __future__ import annotations

from types import MappingProxyType

# Amazon API Gateway Developer Guide, "Amazon API Gateway quotas": the throttle quota per account and region, across
# HTTP, REST and WebSocket APIs (Service Quotas code L-8A5B8E43); the burst is set by AWS from the rate.
API_GATEWAY_THROTTLE_QUOTA_CODE = "L-8A5B8E43"
API_GATEWAY_THROTTLE_RATE = 10_000  # requests a second
API_GATEWAY_THROTTLE_BURST = 5_000
# ... and in these regions, by default:
API_GATEWAY_LOW_THROTTLE_RATE = 2_500
API_GATEWAY_LOW_THROTTLE_BURST = 1_250
API_GATEWAY_LOW_THROTTLE_REGIONS = MappingProxyType(
    {
        "af-south-1": "Africa (Cape Town)",
        "eu-south-1": "Europe (Milan)",
        "ap-southeast-3": "Asia Pacific (Jakarta)",
        "me-central-1": "Middle East (UAE)",
        "ap-south-2": "Asia Pacific (Hyderabad)",
        "ap-southeast-4": "Asia Pacific (Melbourne)",
        "eu-south-2": "Europe (Spain)",
        "eu-central-2": "Europe (Zurich)",
        "il-central-1": "Israel (Tel Aviv)",
        "ca-west-1": "Canada West (Calgary)",
        "ap-southeast-5": "Asia Pacific (Malaysia)",
        "ap-southeast-7": "Asia Pacific (Thailand)",
        "mx-central-1": "Mexico (Central)",
    }
)

# AWS Step Functions Developer Guide, "Step Functions service quotas", Standard workflows (the retry-wait state machine).
STEP_FUNCTIONS_OPEN_EXECUTIONS = 1_000_000  # open executions per account and region (ExecutionLimitExceeded above)
# The regions with the larger token buckets; every other region has the smaller ones.
STEP_FUNCTIONS_LARGE_REGIONS = MappingProxyType({"us-east-1": "US East (N. Virginia)", "us-west-2": "US West (Oregon)", "eu-west-1": "Europe (Ireland)"})
# State transitions (throttled as ExecutionThrottled): (bucket size, refill a second), in the large regions and elsewhere.
STEP_FUNCTIONS_STATE_TRANSITIONS = (5_000, 1_500)
STEP_FUNCTIONS_STATE_TRANSITIONS_ELSEWHERE = (800, 500)
# StartExecution calls: (bucket size, refill a second), likewise.
STEP_FUNCTIONS_START_EXECUTION = (1_300, 300)
STEP_FUNCTIONS_START_EXECUTION_ELSEWHERE = (800, 150)
