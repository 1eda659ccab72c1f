"""The collector: one object that gathers a pytest run's failures and writes its session.

Registered by ``pytest_configure`` only when the plugin is enabled (see ``__init__``); its hooks stay
thin: capture is in ``capture.py``, ranking in ``locate/``, the event log in ``store/``.
"""

from __future__ import annotations

from typing import Any

import pytest

from .options import read_options
from .summary import summary_lines

RERUN_SUFFIX = "#whetstone-rerun"


class WhetstoneCollector:
    """Collects failures of one pytest process and writes the session (controller side).

    Hooks stay thin: capture is in ``plugin/capture.py``, ranking in ``locate/``, the event log in
    ``store/sessions.py``.  Any exception in our own analysis is turned into one warning line.
    """

    def __init__(self, config: pytest.Config) -> None:
        import time

        from ..locate.budget import process_startup_s

        began = time.time()
        # the plain run the user compares against starts with the process (locate/budget.py)
        self.startup_s = process_startup_s()
        self.config = config
        self.workspace = str(config.rootpath)
        self.is_worker = hasattr(config, "workerinput")
        self.options = options = read_options(config)
        self.rerun = options.rerun
        self.locate = options.locate
        self.max_n = options.max_candidates
        self.search_budget = options.search_budget_s
        self.search_explicit = options.search_explicit
        self.agent = options.agent
        self.restore_signals: Any = lambda: None
        self.search_skipped = ""  # why a default run did not search (its budget rule)
        self._items: dict[str, Any] = {}  # node id -> failing item (for the in-process mutant pass)
        self._cheap_evidence: dict[str, list[Any]] = {}  # failure id -> what its cheap mutant pass saw
        self._side_exceptions: dict[str, list[str]] = {}  # node id -> thread / unraisable exception texts
        self.captured: list[Any] = []  # capture.Captured, in execution order
        self.records: list[Any] = []  # final TestFailureRecords (incl. those from workers)
        self.candidates: list[Any] = []  # the FixCandidates written to the session
        self.collect_records: list[Any] = []
        self._collect_excinfo: dict[str, Any] = {}
        self.failed_reports: dict[str, Any] = {}
        self.counts: dict[str, int] = {}
        self.analysis_ms: list[float] = []
        self.warning: str | None = None
        self.verdict: Any = None
        self.session_path: str | None = None
        self.exitstatus = 0
        self.started = time.time()
        self._setup_s = self.started - began  # reading options and whetstone.json5: ours, not the run's
        self._cmp: Any = None
        self._item_caps: list[Any] = []
        self._in_call = False
        self._rerunning = False
        self._cov: Any = None  # locate.pycoverage.CoverageContexts
        self._failed_ids: set[str] = set()
        self._finished = False
        self._rerun_spent = 0.0
        self._reruns = 0
        self._cheap_spent = 0.0
        self._spectra_spent = 0.0
        self._passed: dict[str, float] = {}  # node id -> duration of a passing call (a value fault's spectrum)
        self.spectra_stats: dict[str, Any] | None = None  # what the value-fault spectra pass did
        self._done = 0  # items run so far (projects the run's length for the re-run budget)
        self.rerun_skipped = 0
        self.candidates_ms: float | None = None  # default (unvalidated) candidate generation, all failures
        self.search_stats: dict[str, Any] | None = None  # what the validated search did (candidates.search)

    # -- guard ----------------------------------------------------------------
    def _guard(self, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except Exception as exc:  # our analysis must never change the run
            if self.warning is None:
                text = str(exc).splitlines()[0][:200] if str(exc) else ""
                self.warning = f"analysis failed ({type(exc).__name__}: {text}); results may be incomplete"
            return None

    # -- session --------------------------------------------------------------
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        # sbfl measures every test; the other modes only re-runs, so they load coverage on
        # the first failure and a passing session never imports it.
        if self.locate == "sbfl" and not self._is_controller():
            self._coverage_contexts()

    def _coverage_contexts(self) -> Any:
        if self._cov is None and self.locate in ("auto", "coverage", "sbfl") and not self._is_controller():
            from ..locate.pycoverage import CoverageContexts

            self._cov = CoverageContexts(self.workspace)
        return self._cov

    def _is_controller(self) -> bool:
        return self.config.pluginmanager.has_plugin("dsession")

    # -- per test -------------------------------------------------------------
    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        self._cmp = None
        self._item_caps = []
        self._done += 1
        if self.locate == "sbfl" and self._cov is not None:
            with self._cov.measure(item.nodeid):  # opt-in: every test, one context each
                result = yield
        else:
            result = yield
        if self._item_caps and self.rerun > 0:
            self._guard(self._rerun, item, nextitem)
        self._item_caps = []
        return result

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Any:
        self._in_call = True
        try:
            return (yield)
        finally:
            self._in_call = False

    def pytest_assertrepr_compare(self, config: pytest.Config, op: str, left: Any, right: Any) -> None:
        if not self._rerunning:
            from .capture import Comparison

            self._cmp = Comparison(op, left, right)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        report = yield
        if report.failed and not self._rerunning:
            self._guard(self._capture, item, call, report)
        return report

    def _capture(self, item: pytest.Item, call: pytest.CallInfo[None], report: Any) -> None:
        import time

        t0 = time.perf_counter()  # lazy imports included: the first failure pays them
        from ..locate.python import asserted_functions, called_functions
        from .capture import build_record

        cap = build_record(item, call.when, call.excinfo, report, self._cmp, self.workspace)
        if cap.record.failure_type in ("", "unknown"):
            from ..classify import classify_test  # a fallback: most failures never need it

            classify_test(cap.record)
        cap.called = []
        if self.locate != "off" and call.when == "call":
            obj = getattr(item, "obj", None)
            for _ in range(8):  # a decorated test (freezegun, mock.patch): the test's own globals, not the wrapper's
                obj = getattr(obj, "__wrapped__", None) or obj
                if not hasattr(obj, "__wrapped__"):
                    break
            namespace = getattr(obj, "__globals__", None)
            if namespace is None:
                module = getattr(item, "module", None)
                namespace = getattr(module, "__dict__", None)
            cap.called = called_functions(cap.test_abs, cap.test_def_line, namespace, self.workspace)
            if cap.called and not cap.record.impl_file:  # a value fault: which callee's value failed the check
                cap.asserted = asserted_functions(cap.test_abs, cap.test_def_line, cap.record.line, namespace,
                                                  self.workspace)
        cap.covered = None
        # A failing unittest subTest / pytest subtest: its item's own call report passes, and a
        # re-run would report the subtest failures again through the hooks (changing counts).
        cap.subtest = self._in_call  # a report made while the test body still runs is a subtest's
        cap.elapsed_ms = (time.perf_counter() - t0) * 1000
        self._item_caps.append(cap)
        self.captured.append(cap)
        self._items[item.nodeid] = item
        self._failed_ids.add(item.nodeid)

    def _rerun(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        import contextlib
        import io
        import warnings

        from _pytest.runner import runtestprotocol

        from ..locate.pyreports import brief_failures
        from .rerun import alarm, quiet_live_logging

        opt = self.config.option
        if getattr(opt, "usepdb", False) or getattr(opt, "setupshow", False) or getattr(opt, "setuponly", False):
            return
        caps = self._item_caps
        if any(c.record.outcome == "timeout" for c in caps):
            return  # re-running a hang would only hang again
        if any(c.subtest for c in caps):
            return  # see _capture: not re-runnable without reporting twice
        import time

        from ..locate.budget import rerun_allowed, rerun_cost

        # Budget (locate/budget.py): a share of the run's projected length, judged from the failing
        # test's own duration, so a suite where many tests fail stays near the cost of a plain run.
        elapsed = time.time() - self.started
        total = len(getattr(item.session, "items", None) or ()) or self._done
        projected = self.startup_s + elapsed * max(1.0, total / max(1, self._done))
        duration = sum(c.record.duration_ms for c in caps) / 1000.0
        contexts = self._coverage_contexts() if self.locate != "sbfl" else None
        traced = contexts is not None and contexts.line_traced(duration)
        first = contexts is not None and contexts.start_cost(duration) > 0
        expected = rerun_cost(duration, first, line_traced=traced)
        if self._reruns:  # what re-runs really took here (fixtures, coverage's start and stop): no less
            expected = max(expected, self._rerun_spent / self._reruns)
        # the re-runs' own share: the plugin's set-up is not theirs to pay for
        if not rerun_allowed(self._spent() - self._setup_s, projected, expected, explicit=self.search_explicit):
            self.rerun_skipped += 1
            return
        t0 = time.time()
        measure = contexts is not None
        limit = 10.0 + 3.0 * duration
        self._rerunning = True
        try:
            with contextlib.ExitStack() as stack:
                stack.enter_context(warnings.catch_warnings(record=True))
                if getattr(opt, "capture", "fd") == "no":
                    stack.enter_context(contextlib.redirect_stdout(io.StringIO()))
                    stack.enter_context(contextlib.redirect_stderr(io.StringIO()))
                stack.enter_context(quiet_live_logging(self.config))
                if measure:
                    stack.enter_context(self._cov.measure(item.nodeid + RERUN_SUFFIX, duration))
                stack.enter_context(alarm(limit))
                stack.enter_context(brief_failures(item))  # nobody reads its reports: no full tracebacks
                reports = runtestprotocol(item, nextitem=nextitem, log=False)
        finally:
            self._rerunning = False
            self._rerun_spent += time.time() - t0
            self._reruns += 1
        passed = bool(reports) and all(r.passed for r in reports) and any(r.when == "call" for r in reports)
        for cap in caps:
            cap.record.flaky = passed

    def _spent(self) -> float:
        """Seconds the plugin added to the run so far: set-up, re-runs, capture and analysis, the passes."""
        return (self._setup_s + self._rerun_spent + self._cheap_spent + self._spectra_spent
                + sum(c.elapsed_ms for c in self.captured) / 1000.0)

    def plain_run_s(self) -> float:
        """The run without the plugin, as estimated now: the process so far less what the plugin spent."""
        import time

        began = self.started - self._setup_s  # when the plugin was configured: its set-up is in _spent
        return max(0.0, self.startup_s + time.time() - began - self._spent())

    def pytest_warning_recorded(self, warning_message: Any, when: str, nodeid: str, location: Any) -> None:
        if nodeid and not self._rerunning:
            self._guard(self._side_exception, warning_message, nodeid)

    def _side_exception(self, warning_message: Any, nodeid: str) -> None:
        from ..locate.side_exceptions import MAX_TEXTS, is_side_exception

        if is_side_exception(warning_message) and sum(map(len, self._side_exceptions.values())) < MAX_TEXTS:
            self._side_exceptions.setdefault(nodeid, []).append(str(warning_message.message))

    # -- collection -----------------------------------------------------------
    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed and not self.is_worker:
            self._guard(self._collect_failure, report)

    def pytest_exception_interact(self, node: Any, call: Any, report: Any) -> None:
        # called before pytest_collectreport for a collector that raised: keep its exception
        if isinstance(report, pytest.CollectReport) and call.excinfo is not None:
            self._collect_excinfo[report.nodeid] = call.excinfo

    def _collect_failure(self, report: pytest.CollectReport) -> None:
        from ..verdict import is_source_load_error
        from .capture import cause_name, load_error_location, record_from_report

        record = record_from_report(report, self.workspace)
        record.failure_type = "infra"
        record.outcome = "error"
        excinfo = self._collect_excinfo.pop(report.nodeid, None)
        if excinfo is not None:
            where = load_error_location(excinfo.value, excinfo.tb, self.workspace)
            if where is not None:
                # the code under test does not load: a source error at its own line, not a broken setup
                record.exception_type = cause_name(excinfo.value)
                record.impl_file, record.impl_line = where
                if is_source_load_error(record):
                    record.failure_type = "exception"
        self.collect_records.append(record)

    # -- outcomes (what the terminal counts) ------------------------------------
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" and report.passed:
            self._passed[report.nodeid] = report.duration
        if self.is_worker:
            return
        key = _outcome_key(report)
        if key:
            self.counts[key] = self.counts.get(key, 0) + 1
        if report.failed:
            self.failed_reports.setdefault(f"{report.nodeid}@{report.when}", report)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        data = (getattr(node, "workeroutput", None) or {}).get("whetstone")
        if isinstance(data, dict):
            self._guard(self._merge_worker, data)

    def _merge_worker(self, data: dict[str, Any]) -> None:
        from ..records import TestFailureRecord

        self.records.extend(TestFailureRecord.from_dict(r) for r in data.get("records", []))
        self.analysis_ms.extend(float(x) for x in data.get("analysis_ms", []))
        if data.get("warning") and self.warning is None:
            self.warning = str(data["warning"])

    # -- end of session -------------------------------------------------------
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.exitstatus = int(exitstatus)
        local = self._guard(self._finalize_local) or []
        if self.is_worker:
            workeroutput = getattr(self.config, "workeroutput", None)
            if workeroutput is not None:
                workeroutput["whetstone"] = {
                    "records": [r.to_dict() for r in local],
                    "analysis_ms": self.analysis_ms,
                    "warning": self.warning,
                }
            return
        self.records.extend(local)
        self._guard(self._write_session, session)

    def _finalize_local(self) -> list[Any]:
        if not self.captured:
            return []  # a passing session: nothing to rank, nothing to import
        import time

        from ..locate.python import Evidence, ast_node_id, log_evidence, rank_suspects
        from .passes import cheap_mutant_pass, spectra_pass

        spectrum = None
        measured = self._cov.result() if self._cov is not None and self.captured else {}
        if self.locate == "sbfl" and measured:
            from ..locate.sbfl import build_spectrum

            spectrum = build_spectrum(measured, self._failed_ids, self.workspace)
        for cap in self.captured:
            cap.covered = measured.get(cap.record.node_id + RERUN_SUFFIX) or measured.get(cap.record.node_id)
        spectra = self._guard(spectra_pass, self) or {}
        out = []
        for cap in self.captured:
            record = cap.record
            node_id = record.node_id
            if self.locate != "off":
                t0 = time.perf_counter()
                frames = cap.frames
                if node_id in self._side_exceptions:  # a thread's / unraisable exception: deepest of all
                    from ..locate.side_exceptions import frames_of

                    frames = [*frames, *(f for text in self._side_exceptions[node_id] for f in frames_of(text))]
                ev = Evidence(
                    test_file=cap.test_abs,
                    test_line=cap.test_def_line,
                    test_name=record.test_name,
                    frames=frames,
                    covered_lines=cap.covered,
                    spectrum=spectrum,
                    total_failed=max(1, len(self._failed_ids)),
                    called=cap.called,
                    asserted=cap.asserted,
                    missing_name=cap.missing_name,
                )
                if node_id in spectra:  # a value fault: its module's spectrum (locate/pyspectra.py)
                    module = spectra[node_id]
                    ev.spectrum, ev.spectrum_scope, ev.spectrum_remark = module.spectrum(), "module", module.remark()
                    ev.total_failed, ev.total_passed = len(module.failed), module.passing
                log_evidence(ev, record.failure_id)
                record.suspects = rank_suspects(ev, self.workspace, self.max_n)
                record.ast_node_id = ast_node_id(record.suspects[0] if record.suspects else None)
                cap.elapsed_ms += (time.perf_counter() - t0) * 1000
            self.analysis_ms.append(round(cap.elapsed_ms, 2))
            out.append(record)
        if self.locate != "off" and not self.is_worker:
            self._guard(cheap_mutant_pass, self)
        return out

    def _all_records(self) -> list[Any]:
        seen = {r.node_id for r in self.records}
        extra = []
        for report in self.failed_reports.values():
            if report.nodeid not in seen:  # e.g. a crashed xdist worker: no native capture
                from .capture import record_from_report

                seen.add(report.nodeid)
                extra.append(record_from_report(report, self.workspace))
        ordered = [*self.collect_records, *self.records, *extra]
        if self._is_controller():  # records came from workers in arrival order
            ordered = [*self.collect_records, *sorted([*self.records, *extra], key=lambda r: r.node_id)]
        return list({r.failure_id: r for r in ordered}.values())

    def _write_session(self, session: pytest.Session) -> None:
        import time

        from ..paths import display_path
        from ..report.agent import write_agent_report
        from ..store import events
        from ..store.events import RunWriter
        from ..store.sessions import open_session
        from ..verdict import Evidence, is_source_load_error, judge, make_verdict, phase_ledger
        from .run_records import resolve_store, run_facts, run_records

        records = self._all_records()
        self.records = records
        facts = run_facts(self.exitstatus, collect_errors=len(self.collect_records))
        judgement = judge(Evidence(test_failures=records, facts=facts, phase="tests", tools=("pytest",)))
        failure = judgement.failure
        live = [r for r in records if not r.flaky]
        counts = dict(self.counts)
        counts["flaky"] = sum(1 for r in records if r.flaky)
        if self.collect_records:
            counts["error"] = counts.get("error", 0) + len(self.collect_records)
        invoked = self.config.invocation_params
        store = resolve_store(self.options.store_dir, invoked.dir)
        ws_session = open_session(store, meta={"target": "pytest", "workspace": self.workspace})
        attempt, observation = run_records(
            ws_session.session_id, self.started, invoked.args, self.exitstatus, failure, records,
            counts.get("passed", 0), int((time.time() - self.started) * 1000),
        )
        writer = RunWriter(ws_session)
        writer.add(events.ATTEMPT, {"attempt": attempt.to_dict()})
        writer.add(events.OBSERVATION, {"observation": observation.to_dict()})
        writer.add(
            events.TEST_FAILURES,
            {"origin": f"pytest:{self.workspace}", "records": [r.to_dict() for r in records], "replace": True},
        )
        candidates = self.candidates = self._guard(
            self._candidates, [r for r in live if r.outcome != "error" or is_source_load_error(r)]
        ) or []
        if self._guard(self._rerank_by_mutants, records):
            writer.add(events.TEST_FAILURES, {
                "origin": f"pytest:{self.workspace}", "records": [r.to_dict() for r in records], "replace": True,
            })
        if self._cheap_evidence or (self.search_stats or {}).get("evidence"):
            from ..locate.mutation import with_notes

            writer.add(events.MUTANT_EVIDENCE, {
                "in_process": {fid: with_notes(ev) for fid, ev in self._cheap_evidence.items()},
                "search": with_notes((self.search_stats or {}).get("evidence") or []),
            })
        if candidates:
            writer.add(events.CANDIDATES, {"records": [c.to_dict() for c in candidates]})
        if self.search_stats is not None:
            writer.add(events.SEARCH, self.search_stats)
        writer.add(events.COUNTS, counts)
        if self.analysis_ms or self.rerun_skipped:
            stats: dict[str, Any] = {"analysis_ms": self.analysis_ms, "rerun_skipped": self.rerun_skipped}
            if self.spectra_stats is not None:
                stats["spectra"] = self.spectra_stats
            if self.candidates_ms is not None:
                stats["candidates_ms"] = self.candidates_ms
            writer.add(events.PLUGIN_STATS, stats)
        # judged again: the mutants may have re-ranked the suspects first_error points at
        judgement = judge(Evidence(test_failures=records, facts=facts, phase="tests", tools=("pytest",)))
        report = self.session_path = display_path(ws_session.path, self.workspace)
        self.verdict = make_verdict("pytest", judgement, counts=counts, report=report)
        duration_ms = int((time.time() - self.started) * 1000)
        own = {**self.verdict.to_dict(), "facts": facts.to_dict(), "attempt_id": attempt.attempt_id,
               "duration_ms": duration_ms}
        written = write_agent_report(
            store, self.verdict, session_id=ws_session.session_id, session_path=report,
            phases=phase_ledger([own]), duration_ms=duration_ms, test_failures=records,
            candidates=candidates or [],
        )
        if written is not None:
            self.verdict.report = own["report"] = display_path(written, self.workspace)
        writer.add(events.VERDICT, own)
        writer.write()

    def _candidates(self, failures: list[Any]) -> list[Any]:
        if not failures or not self.options.candidates:
            return []
        import time
        from pathlib import Path

        from ..candidates import generate

        # the validated search re-runs the failing tests in a scratch copy; outranks every guess
        budget = self.search_budget if not self.is_worker else 0.0
        if budget > 0 and not self.search_explicit:
            budget = self._default_search_budget(budget)
        stats = None
        if budget > 0:  # the search's modules (libcst) load only when it runs
            from ..candidates.search import SearchStats

            stats = SearchStats()
        deadline = None
        if not self.search_explicit:  # a default run: its own share of time (locate/budget.py)
            from ..locate.budget import candidates_budget

            deadline = time.monotonic() + candidates_budget(self.plain_run_s())
        t0 = time.perf_counter()
        try:
            result = generate([], failures, Path(self.workspace), search_budget_s=budget, search_stats=stats,
                              deadline=deadline)
        finally:
            total_ms = (time.perf_counter() - t0) * 1000
            searched_ms = stats.elapsed_s * 1000 if stats is not None else 0.0
            self.candidates_ms = round(total_ms - searched_ms, 2)  # the unvalidated generators
            if stats is not None:
                self.search_stats = stats.to_dict()
        return result[: self.max_n * max(1, len(failures))]

    def _default_search_budget(self, budget: float) -> float:
        """A default run searches only within a share of its own time, so a failing run stays near the
        cost of a plain one; ``--whetstone-search=1`` (and ``whetstone fix``) search in full."""

        from ..locate.budget import default_search_budget

        spent = self._spent()
        share = default_search_budget(self.plain_run_s(), spent, budget)
        if share <= 0:
            self.search_skipped = "the run is too short for it by default"
        return share

    def _rerank_by_mutants(self, records: list[Any]) -> bool:
        """Feed the search's mutant outcomes into each failure's suspects; True when any changed."""
        evidence = (self.search_stats or {}).get("evidence") or []
        if not evidence:
            return False
        from ..locate.mutation import rerank

        changed = False
        for record in records:
            new = rerank(record.suspects, evidence)
            if new != record.suspects:
                record.place_suspects(new)
                changed = True
        return changed

    # -- terminal -------------------------------------------------------------
    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
        if self.is_worker:
            return
        lines = self._guard(summary_lines, self) or []
        if self.warning:
            lines.append(f"whetstone: warning: {self.warning}")
        if not lines:
            return
        terminalreporter.write_sep("-", "whetstone")
        for line in lines:
            terminalreporter.write_line(line)

    def close(self) -> None:
        """Print the verdict block: the very last lines, after pytest's own stats line."""
        if self._finished or self.is_worker:
            return
        self._finished = True
        if self.verdict is None:
            if self.warning:
                from ..store.sessions import warn_line

                warn_line(self.warning)
            return
        from ..verdict import is_nested, render

        if is_nested():
            return
        tr = self.config.pluginmanager.get_plugin("terminalreporter")
        text = render(self.verdict)
        try:
            if tr is not None:
                tr.write(text)
                tr.flush()  # type: ignore[union-attr]
            else:
                import sys

                sys.stdout.write(text)
                sys.stdout.flush()
        except (OSError, ValueError, AttributeError):
            pass


def _outcome_key(report: Any) -> str | None:
    if report.when == "call":
        if report.passed:
            return "xpassed" if hasattr(report, "wasxfail") else "passed"
        if report.skipped:
            return "xfailed" if hasattr(report, "wasxfail") else "skipped"
        return "failed"
    if report.failed:
        return "error"
    if report.skipped:
        return "xfailed" if hasattr(report, "wasxfail") else "skipped"
    return None
