"""The feedback-loop orchestrator: policy, selection, keep/revert, escalation, audit (seed 002 + seed 004).

Modules: ``policy`` (the decision table), ``select`` (candidate auto-selection),
``ledger`` (failure fingerprints, loop breaker), ``env`` (environment probe and
requirements gap), ``escalate`` (EscalationReport, setup script), ``audit``
(the JSONL audit trail), ``state`` (the loop's fold over session events),
``loop`` (FeedbackLoopOrchestrator.step / run_to_completion), ``cli``
(`whetstone fix`, `start`, `step`).
"""
