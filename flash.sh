#!/usr/bin/env bash
# Flash the agent onto a Pico W / Pico 2 W that already runs the Kaluma firmware:
# build the bundle, check it fits the board's budget, find the USB serial port,
# optionally copy a config file to /config.json, then write the program.
# See docs/flashing.md.
set -euo pipefail

readonly BOARDS=(pico-w pico2-w)
readonly RPI_VENDOR_ID=2e8a

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly ROOT

# Test and tuning hooks (documented in --help).
KALUMA=${KALUMA_BIN:-node_modules/.bin/kaluma}
BUNDLE=${FLASH_BUNDLE:-dist/agent.js}
BINDING=${FLASH_SERIAL_BINDING:-node_modules/@serialport/bindings/build/Release/bindings.node}
SYS_ROOT=${FLASH_SYS_ROOT:-}
OS_NAME=${FLASH_OS:-$(uname -s)}
KALUMA_TIMEOUT=${FLASH_KALUMA_TIMEOUT:-120}

board=pico-w
port=
config=
dry_run=false
tmp_dir=

usage() {
  cat <<EOF
Usage: ./flash.sh [--board pico-w|pico2-w] [--port PORT] [--config FILE.json] [--dry-run] [--help]

Builds the agent for the board, checks the bundle against the board's
bundleBudgetBytes, finds the board's USB serial port, copies FILE.json to
/config.json on the board (if given) and writes the program, which then starts.
The board must already run the Kaluma firmware and be plugged in normally
(not in BOOTSEL mode).

Options:
  --board NAME     pico-w (default) or pico2-w
  --port PORT      serial port, e.g. /dev/ttyACM0 or /dev/cu.usbmodem1101;
                   found automatically when exactly one board is plugged in
  --config FILE    JSON file copied to /config.json before the program is written
  --dry-run        build and check everything, print the kaluma commands, but
                   do not open a port or run kaluma
  -h, --help       show this help

Environment:
  KALUMA_BIN            kaluma executable (default node_modules/.bin/kaluma)
  FLASH_BUILD_CMD       build command; "--board NAME" is appended
                        (default: npx tsx scripts/build.ts)
  FLASH_BUNDLE          bundle the build writes (default dist/agent.js)
  FLASH_SERIAL_BINDING  serialport native binding to check for
  FLASH_SYS_ROOT        prefix for /sys and /dev when looking for boards
  FLASH_OS              override uname -s (Linux, Darwin)
  FLASH_KALUMA_TIMEOUT  seconds before a silent board is given up on (default 120)
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

cleanup() {
  if [[ -n $tmp_dir ]]; then rm -rf -- "$tmp_dir"; fi
}
trap cleanup EXIT

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
    }' "$config" 2>&1); then
    die "config file '$config' $problem: fix it and retry"
  fi
  say "config: $config is valid JSON"
}

check_tools() {
  command -v node >/dev/null 2>&1 || die "node not found: install Node.js 20 or newer"
  [[ -d $ROOT/node_modules ]] || die "node_modules is missing: run npm ci first"
  say "dependencies: node_modules present"
}

build_bundle() {
  local cmd=(npx tsx scripts/build.ts --board "$board")
  if [[ -n ${FLASH_BUILD_CMD:-} ]]; then
    say "build: $FLASH_BUILD_CMD --board $board"
    bash -c "$FLASH_BUILD_CMD \"\$@\"" build --board "$board" ||
      die "the build failed for $board (see above): fix it and run ./flash.sh again"
  else
    say "build: $(show_cmd "${cmd[@]}")"
    "${cmd[@]}" || die "the build failed for $board (see above): fix it and run ./flash.sh again"
  fi
  [[ -f $BUNDLE ]] || die "the build did not produce $BUNDLE: check scripts/build.ts"
}

check_budget() {
  local board_file=boards/$board.json
  [[ -f $board_file ]] || die "board file $board_file is missing: it must define bundleBudgetBytes for $board"
  local budget
  budget=$(node -e '
    const b = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const n = b.bundleBudgetBytes;
    if (!Number.isInteger(n) || n <= 0) process.exit(1);
    console.log(n);' "$board_file" 2>/dev/null) ||
    die "$board_file has no positive integer bundleBudgetBytes: add one"
  local size
  size=$(wc -c <"$BUNDLE")
  size=$((size + 0))
  if ((size > budget)); then
    die "bundle is $size bytes, budget $budget for $board: shrink the code (see the .meta.json next to the bundle for the biggest inputs)"
  fi
  say "size: $BUNDLE is $size bytes, budget $budget for $board"
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

check_binding() {
  if [[ ! -f $BINDING ]]; then
    die "the serialport native binding is missing ($BINDING): run 'npm rebuild @serialport/bindings --foreground-scripts' in $ROOT (it compiles with python3, make and a C++ compiler when no prebuilt binary can be downloaded)"
  fi
  say "serial binding: present"
}

# Run kaluma and decide from its output whether it worked: the 1.0 CLI exits
# with status 0 even when it cannot open the port, and never gives up on a
# board that does not answer.
run_kaluma() {
  local what=$1 sub=$2
  shift
  local cmd=("$KALUMA" "$@")
  if $dry_run; then
    say "$what: would run: $(show_cmd "${cmd[@]}")"
    return 0
  fi
  say "$what: $(show_cmd "${cmd[@]}")"
  [[ -x $KALUMA ]] || die "kaluma not found at $KALUMA: run npm ci first"

  [[ -n $tmp_dir ]] || tmp_dir=$(mktemp -d)
  local out=$tmp_dir/out err=$tmp_dir/err status=0
  local runner=()
  if command -v timeout >/dev/null 2>&1; then runner=(timeout "$KALUMA_TIMEOUT"); fi
  ${runner[@]+"${runner[@]}"} "${cmd[@]}" 2>"$err" | tee "$out" || status=$?
  if [[ -s $err ]]; then cat "$err" >&2; fi

  if ((status == 124)); then
    die "the board did not answer within ${KALUMA_TIMEOUT}s: press reset (or boot with GP22 tied to GND if the program hangs at start) and retry"
  fi
  if grep -qi 'permission denied' "$err"; then
    die "no permission to use $port: on Linux run 'sudo usermod -aG dialout \$USER' and log in again"
  fi
  if grep -qiE 'resource busy|cannot lock' "$err"; then
    die "$port is in use by another program: close the other serial monitor or console, then retry"
  fi
  if grep -qiE 'no such file|cannot open' "$err"; then
    die "could not open $port: replug the board and check the port name"
  fi
  if grep -qi 'inappropriate ioctl' "$err"; then
    die "$port is not a serial port: pass the board's USB serial port (/dev/ttyACM* or /dev/cu.usbmodem*) to --port"
  fi
  if ((status != 0)) || grep -q 'Error' "$err"; then
    die "kaluma $sub failed (see above): replug the board and retry"
  fi
  if [[ $sub == write ]] && ! grep -q '^Done\.' "$out"; then
    die "kaluma write did not confirm the upload: replug the board and retry"
  fi
}

main() {
  parse_args "$@"
  say "board: $board"
  check_tools
  check_config
  cd "$ROOT"
  build_bundle
  check_budget
  find_port
  check_port
  check_binding
  # The config goes first: writing the program restarts it, and it reads
  # /config.json only at boot.
  if [[ -n $config ]]; then
    run_kaluma config put "$config" /config.json --port "$port"
  fi
  run_kaluma program write "$BUNDLE" --port "$port"
  if $dry_run; then
    say "dry run: nothing was sent to the board"
  else
    say "done: the agent is running on $port"
  fi
}

main "$@"
