#!/usr/bin/env bash
# Installs everything PyPTO needs on a Debian 12 machine, idempotently:
# the C++ toolchain and libraries from Debian, and a project virtual
# environment (.venv) with the pinned Python packages from PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."

DEBIAN_PACKAGES=(
  g++ make ninja-build
  llvm-16-dev libclang-16-dev libclang-cpp16-dev
  libboost-dev libyaml-cpp-dev nlohmann-json3-dev
  googletest libgtest-dev libgmock-dev
  libopenmpi-dev openmpi-bin
  python3-venv
  chromium
)

missing=()
for pkg in "${DEBIAN_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: these packages are missing and installing them needs root: ${missing[*]}" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv from $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi

# The pinned development requirements live in pyproject.toml (extra "dev");
# reinstall only when they change.
requirements=$(.venv/bin/python - <<'PY'
import tomllib
with open("pyproject.toml", "rb") as f:
    project = tomllib.load(f)["project"]
print("\n".join(project["dependencies"] + project["optional-dependencies"]["dev"] + ["cmake==4.4.5", "ninja==1.13.2"]))
PY
)
stamp=.venv/.pypto-requirements
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$requirements" ]; then
  echo "setup: installing Python packages into .venv"
  # shellcheck disable=SC2086
  if ! .venv/bin/python -m pip install --quiet --disable-pip-version-check $requirements > .venv/pip.log 2>&1; then
    cat .venv/pip.log >&2
    echo "setup: pip install failed (log above)" >&2
    exit 1
  fi
  printf '%s' "$requirements" > "$stamp"
fi
