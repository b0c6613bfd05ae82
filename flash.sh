#!/usr/bin/env bash
# Flash the agent onto a Pico W / Pico 2 W that already runs the Kaluma firmware:
# build the bundle, check it fits the board's budget, find the USB serial port,
# then (scripts/flash/board.ts) bring the board to a maintenance boot, copy a
# config file to /config.json if given, write the program, verify both and
# start it. See docs/flashing.md.
set -euo pipefail

readonly BOARDS=(pico-w pico2-w)
readonly RPI_VENDOR_ID=2e8a

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly ROOT

# Test and tuning hooks (documented in --help).
BUNDLE=${FLASH_BUNDLE:-dist/agent.js}
SYS_ROOT=${FLASH_SYS_ROOT:-}
OS_NAME=${FLASH_OS:-$(uname -s)}
readonly SERIAL_HELPER=scripts/flash/board.ts
readonly TSX=node_modules/.bin/tsx

board=pico-w
port=
config=
dry_run=false

usage() {
  cat <<EOF
Usage: ./flash.sh [--board pico-w|pico2-w] [--port PORT] [--config FILE.json] [--dry-run] [--help]

Builds the agent for the board, checks the bundle against the board's
bundleBudgetBytes, finds the board's USB serial port, and then talks to the
board's REPL: if the agent runs, maintenance() reboots it without agent and
watchdog; FILE.json (if given) goes to /config.json (written to a temporary
name, read back, renamed); the program is written with .flash -w, its size
checked with .flash -s, and started with .load; the agent's boot line
(after the REPL's prompt: the agent boots once its top level has returned)
tells the mode.
The board must already run the Kaluma firmware and be plugged in normally
(not in BOOTSEL mode).

Options:
  --board NAME     pico-w (default) or pico2-w
  --port PORT      serial port, e.g. /dev/ttyACM0 or /dev/cu.usbmodem1101;
                   found automatically when exactly one board is plugged in
  --config FILE    JSON file copied to /config.json before the program is written
  --dry-run        build and check everything, print the steps, but do not
                   open a port
  -h, --help       show this help

Environment:
  FLASH_BUILD_CMD       build command; "--board NAME" is appended
                        (default: npx tsx scripts/build/build.ts)
  FLASH_BUNDLE          bundle the build writes (default dist/agent.js)
  FLASH_SYS_ROOT        prefix for /sys and /dev when looking for boards
  FLASH_OS              override uname -s (Linux, Darwin)
  FLASH_ANSWER_TIMEOUT  seconds for the board's first answer, and for its
                        answer after the agent's boot line (default 40: a
                        running agent can be blocked in a 30 s Wi-Fi join)
  FLASH_REBOOT_TIMEOUT  seconds for the maintenance reboot (default 30)
  FLASH_STEP_TIMEOUT    seconds for any other answer, the agent's boot line
                        after .load among them (default 15)
  FLASH_ERASE_TIMEOUT   seconds for erasing the program area (default 60)
EOF
}

say() { printf 'flash: %s\n' "$*"; }

# One line saying what went wrong and what to do, then stop.
die() {
  printf 'flash: error: %s\n' "$*" >&2
  exit 1
}

usage_error() {
  printf 'flash: error: %s (see ./flash.sh --help)\n' "$*" >&2
  exit 2
}

# Print a command the way a user could paste it into a shell.
show_cmd() {
  local out=
  local arg
  for arg in "$@"; do
    if [[ $arg == '<port>' || $arg =~ ^[A-Za-z0-9_./:=@+-]+$ ]]; then
      out+=" $arg"
    else
      out+=" $(printf '%q' "$arg")"
    fi
  done
  printf '%s' "${out# }"
}

set_option() {
  case $1 in
    --board) board=$2 ;;
    --port) port=$2 ;;
    --config) config=$2 ;;
  esac
}

parse_args() {
  while (($# > 0)); do
    case $1 in
      --board | --port | --config)
        (($# >= 2)) || usage_error "$1 needs a value"
        set_option "$1" "$2"
        shift 2
        ;;
      --board=* | --port=* | --config=*)
        set_option "${1%%=*}" "${1#*=}"
        shift
        ;;
      --dry-run) dry_run=true; shift ;;
      -h | --help) usage; exit 0 ;;
      *) usage_error "unknown argument '$1'" ;;
    esac
  done

  local known=false b
  for b in "${BOARDS[@]}"; do
    [[ $board == "$b" ]] && known=true
  done
  $known || usage_error "unknown board '$board': use --board pico-w or --board pico2-w"
}

# The config path is given relative to the caller's directory; resolve it
# before we change into the project root.
check_config() {
  [[ -n $config ]] || return 0
  [[ -f $config ]] || die "config file '$config' not found: pass an existing JSON file to --config"
  config="$(cd "$(dirname "$config")" && pwd)/$(basename "$config")"
  local problem
  if ! problem=$(node -e '
    const fs = require("fs");
    let v;
    try { v = JSON.parse(fs.readFileSync(process.argv[1], "utf8")); }
    catch (e) { console.log("is not valid JSON (" + e.message + ")"); process.exit(1); }
    if (v === null || typeof v !== "object" || Array.isArray(v)) {
      console.log("must hold a JSON object"); process.exit(1);
    }
    const size = fs.statSync(process.argv[1]).size;
    // It travels as REPL lines and is decoded in the board'"'"'s 180 KB heap.
    if (size > 16384) { console.log("is " + size + " bytes, over the 16384 the board takes"); process.exit(1); }' "$config" 2>&1); then
    die "config file '$config' $problem: fix it and retry"
  fi
  say "config: $config is valid JSON"
}

check_tools() {
  command -v node >/dev/null 2>&1 || die "node not found: install Node.js 20 or newer"
  [[ -d $ROOT/node_modules && -x $ROOT/$TSX ]] || die "node_modules is missing: run npm ci first"
  say "dependencies: node_modules present"
}

build_bundle() {
  local cmd=(npx tsx scripts/build/build.ts --board "$board")
  if [[ -n ${FLASH_BUILD_CMD:-} ]]; then
    say "build: $FLASH_BUILD_CMD --board $board"
    bash -c "$FLASH_BUILD_CMD \"\$@\"" build --board "$board" ||
      die "the build failed for $board (see above): fix it and run ./flash.sh again"
  else
    say "build: $(show_cmd "${cmd[@]}")"
    "${cmd[@]}" || die "the build failed for $board (see above): fix it and run ./flash.sh again"
  fi
  [[ -f $BUNDLE ]] || die "the build did not produce $BUNDLE: check scripts/build/build.ts"
}

# The manifest the build writes next to the bundle. The cold modules travel
# inside the bundle (a leading comment the engine never parses), so only the
# resident part counts against the heap budget.
cold_manifest() {
  printf '%s' "${BUNDLE%.js}.cold.json"
}

# Prints "RESIDENT COLD MODULES" from a manifest that matches the bundle of
# SIZE bytes; status 1 when there is none, 2 when it does not match.
read_manifest() {
  local manifest size=$1
  manifest=$(cold_manifest)
  [[ -f $manifest ]] || return 1
  node -e '
    const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const int = (n) => Number.isInteger(n) && n >= 0;
    const mods = Array.isArray(m.modules) ? m.modules : null;
    if (!int(m.residentBytes) || !int(m.coldBytes) || !mods || m.residentBytes + m.coldBytes !== Number(process.argv[2])
      || !mods.every((x) => x && typeof x.name === "string" && int(x.bytes))) process.exit(2);
    const list = mods.map((x) => x.name + " " + x.bytes + " B").join(", ") || "no modules";
    console.log(m.residentBytes + " " + m.coldBytes + " " + list + " (build " + String(m.buildId) + ")");' \
    "$manifest" "$size" 2>/dev/null || return 2
}

check_budget() {
  local board_file=boards/$board.json
  [[ -f $board_file ]] || die "board file $board_file is missing: it must define bundleBudgetBytes for $board"
  local numbers budget area rbudget
  numbers=$(node -e '
    const b = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const n = b.bundleBudgetBytes;
    if (!Number.isInteger(n) || n <= 0) process.exit(1);
    const area = b.flash && Number.isInteger(b.flash.programBytes) ? b.flash.programBytes : 0;
    const r = Number.isInteger(b.residentBudgetBytes) && b.residentBudgetBytes > 0 ? b.residentBudgetBytes : n;
    console.log(n + " " + area + " " + r);' "$board_file" 2>/dev/null) ||
    die "$board_file has no positive integer bundleBudgetBytes: add one"
  read -r budget area rbudget <<<"$numbers"
  local size
  size=$(wc -c <"$BUNDLE")
  size=$((size + 0))
  # The firmware stores the program as NUL-terminated text.
  if (($(tr -d '\000' <"$BUNDLE" | wc -c) != size)); then
    die "$BUNDLE contains a NUL byte, which would cut the stored program short: check scripts/build/build.ts"
  fi
  # The firmware refuses the upload once the program and its NUL fill the area.
  if ((area > 0 && size + 2 > area)); then
    die "$BUNDLE is $size bytes; the program area of $board holds $((area - 2)): shrink the code"
  fi
  local cold resident
  if cold=$(read_manifest "$size"); then
    resident=${cold%% *}
    if ((resident > rbudget)); then
      die "the resident program is $resident bytes, budget $rbudget for $board: cut code or make it cold (see the .meta.json next to the bundle for the biggest inputs)"
    fi
    if ((size > budget)); then
      die "bundle is $size bytes with its cold code, budget $budget for $board: shrink the code"
    fi
    cold=${cold#* }
    say "size: $BUNDLE is $size bytes (budget $budget): resident $resident, budget $rbudget for $board; cold ${cold%% *}"
  else
    if ((size > budget)); then
      die "bundle is $size bytes, budget $budget for $board: shrink the code (see the .meta.json next to the bundle for the biggest inputs)"
    fi
    say "size: $BUNDLE is $size bytes, budget $budget for $board"
  fi
}

# How the cold code gets onto the board: inside the program itself.
describe_cold() {
  local size cold status=0
  size=$(wc -c <"$BUNDLE")
  cold=$(read_manifest $((size + 0))) || status=$?
  case $status in
    0)
      cold=${cold#* }
      cold=${cold#* }
      say "cold code: $cold inside $BUNDLE (its leading comment, read back from the program area on the board): no extra transfer"
      ;;
    1) say "cold code: no manifest (old build?)" ;;
    *) say "cold code: $(cold_manifest) does not match $BUNDLE (stale manifest?); any cold modules still travel inside $BUNDLE" ;;
  esac
}

usb_vendor_of_tty() {
  local vendor_file=$1/device/../idVendor
  [[ -r $vendor_file ]] || return 1
  tr -d '[:space:]' <"$vendor_file"
}

# A board held in BOOTSEL shows up as a USB drive with the vendor id and no tty.
board_in_bootsel() {
  local dev vendor product
  for dev in "$SYS_ROOT"/sys/bus/usb/devices/*; do
    [[ -r $dev/idVendor && -r $dev/idProduct ]] || continue
    vendor=$(tr -d '[:space:]' <"$dev/idVendor")
    product=$(tr -d '[:space:]' <"$dev/idProduct")
    # 0003: RP2040 boot ROM, 000f: RP2350 boot ROM
    if [[ $vendor == "$RPI_VENDOR_ID" && ($product == 0003 || $product == 000f) ]]; then
      return 0
    fi
  done
  return 1
}

list_candidate_ports() {
  local tty_class=$SYS_ROOT/sys/class/tty
  local entry
  case $OS_NAME in
    Darwin)
      for entry in "$SYS_ROOT"/dev/cu.usbmodem*; do
        [[ -e $entry ]] && printf '%s\n' "$entry"
      done
      ;;
    *)
      if [[ -d $tty_class ]]; then
        for entry in "$tty_class"/ttyACM*; do
          [[ -e $entry ]] || continue
          if [[ $(usb_vendor_of_tty "$entry" || true) == "$RPI_VENDOR_ID" ]]; then
            printf '%s\n' "$SYS_ROOT/dev/${entry##*/}"
          fi
        done
      else
        # No sysfs (some containers): fall back to the udev names.
        for entry in "$SYS_ROOT"/dev/serial/by-id/*; do
          [[ -e $entry && ${entry##*/} == *Raspberry_Pi* ]] && printf '%s\n' "$entry"
        done
      fi
      ;;
  esac
  return 0
}

find_port() {
  if [[ -n $port ]]; then
    say "port: $port (from --port)"
    return 0
  fi
  local found=()
  local line
  while IFS= read -r line; do
    found+=("$line")
  done < <(list_candidate_ports)

  if ((${#found[@]} == 1)); then
    port=${found[0]}
    say "port: $port (the only board found)"
    return 0
  fi

  local problem
  if ((${#found[@]} == 0)); then
    if board_in_bootsel; then
      problem="a board is in BOOTSEL mode (USB drive): BOOTSEL is only for installing the Kaluma UF2 firmware; unplug it and plug it back in without holding BOOTSEL, or pass --port"
    else
      problem="no board found: plug the board in with a USB data cable (not a charge-only one) and make sure it runs the Kaluma firmware; BOOTSEL mode is only for installing the Kaluma UF2, not for this; or pass --port"
    fi
  else
    problem="several boards found (${found[*]}): choose one with --port"
  fi

  if $dry_run; then
    say "port: $problem"
    port='<port>'
    return 0
  fi
  die "$problem"
}

check_port() {
  [[ $port == '<port>' ]] && return 0
  if [[ ! -e $port ]]; then
    $dry_run && { say "port: $port does not exist"; return 0; }
    die "port $port does not exist: check the name with 'ls /dev/ttyACM* /dev/cu.usbmodem*' and replug the board"
  fi
  if [[ ! -r $port || ! -w $port ]]; then
    $dry_run && { say "port: no read/write permission on $port"; return 0; }
    die "no permission to use $port: on Linux run 'sudo usermod -aG dialout \$USER' and log in again"
  fi
  if command -v fuser >/dev/null 2>&1 && fuser "$port" >/dev/null 2>&1; then
    $dry_run && { say "port: $port is in use by another program"; return 0; }
    die "$port is in use by another program: close the other serial monitor or console, then retry"
  fi
}

# The dry run's account of what the serial step would do.
describe_transfer() {
  local size
  size=$(wc -c <"$BUNDLE")
  size=$((size + 0))
  say "board: would wait up to ${FLASH_ANSWER_TIMEOUT:-40}s for the REPL on $port and, if the agent is loaded, send maintenance() (reboot without agent and watchdog) before anything else"
  if [[ -n $config ]]; then
    say "config: would write $config to /config.json.tmp, read back its size and checksum, then rename it to /config.json"
  fi
  say "program: would send $BUNDLE ($size bytes) with .flash -w, require the board's \"Done\" and .flash -s = $size, then .load it and read the agent's boot line"
}

main() {
  parse_args "$@"
  say "board: $board"
  check_tools
  check_config
  cd "$ROOT"
  build_bundle
  check_budget
  describe_cold
  find_port
  check_port
  if $dry_run; then
    describe_transfer
    say "dry run: nothing was sent to the board"
    return 0
  fi
  local args=(--port "$port" --board "$board" --program "$BUNDLE")
  [[ -z $config ]] || args+=(--config "$config")
  exec "$TSX" "$SERIAL_HELPER" "${args[@]}"
}

main "$@"
