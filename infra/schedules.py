"""Scheduled invocations (topology.SCHEDULES): EventBridge Scheduler calls the function's live alias with a fixed event.

The sweeper runs this way (hookline.services.sweeper). Local mode runs the same specs on timer threads (local/pollers.py).
"""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_kms as kms
from aws_cdk import aws_scheduler as scheduler
from aws_cdk import aws_scheduler_targets as targets
from constructs import Construct

from hookline.core.settings import Settings
from hookline.wiring.topology import FUNCTIONS, SCHEDULES
from infra import construct_name
from infra.functions import Functions


class Schedules(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, prefix: str, settings: Settings, functions: Functions, key: kms.IKey) -> None:
        super().__init__(scope, construct_id)
        by_name = {spec.name: spec for spec in FUNCTIONS}
        self.schedules: dict[str, scheduler.Schedule] = {}
        for spec in SCHEDULES:
            minutes = int(getattr(settings, spec.interval_setting))
            self.schedules[spec.key] = scheduler.Schedule(
                self,
                f"{construct_name(spec.key)}Schedule",
                schedule_name=f"{prefix}-{spec.key}",
                description=f"hookline {spec.key}: invokes the {spec.function} function every {minutes} minute(s)",
                schedule=scheduler.ScheduleExpression.rate(Duration.minutes(minutes)),
                target=targets.LambdaInvoke(
                    functions.alias(by_name[spec.function]),
                    input=scheduler.ScheduleTargetInput.from_object(spec.payload()),
                    retry_attempts=0,  # the next run sweeps what this one missed
                ),
                key=key,
            )
