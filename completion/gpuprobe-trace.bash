# SPDX-License-Identifier: GPL-2.0
# bash completion for gpuprobe-trace: subcommands, their options, the PCI
# functions present (-d), --source and --api values, trace and JSON files.
# Installed as share/bash-completion/completions/gpuprobe-trace.

_gpuprobe_trace_bdfs()
{
	local d
	for d in /sys/bus/pci/devices/*; do
		[ -e "$d" ] && printf '%s\n' "${d##*/}"
	done
}

_gpuprobe_trace()
{
	local cur prev words cword
	_init_completion -s || return

	local cmds="info record report export explain probe compare agent serve version"
	local i cmd="" dashdash=0
	for ((i = 1; i < cword; i++)); do
		if [ -z "$cmd" ] && [[ ${words[i]} != -* ]]; then
			cmd=${words[i]}
		elif [ -n "$cmd" ] && [ "${words[i]}" = "--" ]; then
			dashdash=$i
			break
		fi
	done

	if [ -z "$cmd" ]; then
		COMPREPLY=($(compgen -W "$cmds --help --version" -- "$cur"))
		return
	fi

	# record -- CMD ARGS...: complete the workload's command line
	if [ "$dashdash" -gt 0 ]; then
		_command_offset $((dashdash + 1))
		return
	fi

	case $prev in
	-d | --device)
		COMPREPLY=($(compgen -W "$(_gpuprobe_trace_bdfs)" -- "$cur"))
		__ltrim_colon_completions "$cur"
		return ;;
	-s | --source | --guest-source)
		# xentrace: record's only, in Xen's dom0
		if [ "$cmd" = record ] && [ "$prev" != --guest-source ]; then
			COMPREPLY=($(compgen -W "auto module tracefs xentrace" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "auto module tracefs" -- "$cur"))
		fi
		return ;;
	--xentrace-input | --xentrace-file)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--guest | -l | --listen)
		# serve listens on HTTP; record --guest and agent speak vsock or TCP
		if [ "$cmd" = serve ]; then
			COMPREPLY=($(compgen -W "127.0.0.1:9477 [::1]:9477" -- "$cur"))
			__ltrim_colon_completions "$cur"
		else
			COMPREPLY=($(compgen -W "vsock: tcp:" -- "$cur"))
			compopt -o nospace
		fi
		return ;;
	--guest-target | --guest-command | --guest-timeout | --timeout | -t | --token | \
	--test-clock-offset | --test-clock-drift | --guest-vmm | --test-tsc-offset | --test-tsc-error)
		return ;;
	-T | --token-file)
		_filedir
		return ;;
	--api)
		COMPREPLY=($(compgen -W "cuda opencl all edu" -- "$cur"))
		return ;;
	-D | --duration | -p | --pid | --rounds)
		return ;;
	-r | --role)
		COMPREPLY=($(compgen -W "host guest auto" -- "$cur"))
		return ;;
	--inject-dir)
		_filedir -d
		return ;;
	--api-calls)
		COMPREPLY=($(compgen -W "attribution all" -- "$cur"))
		return ;;
	-o | --output | --perfetto | --perfetto-proto | --csv)
		_filedir
		return ;;
	esac

	local opts=""
	case $cmd in
	info) opts="-d --device --json" ;;
	record) opts="-d --device -o --output -s --source -D --duration -q --quiet --no-inject --no-iommu-parts --inject-dir --api-calls
		--zstd --uncompressed --cgroup --xentrace-input --xentrace-file
		--guest --guest-target --guest-source --guest-command --guest-timeout --guest-vmm --token --token-file --" ;;
	agent) opts="-l --listen -T --token-file -t --token --once --timeout -q --quiet" ;;
	report) opts="--json -v --verbose --tracing-cost" ;;
	export) opts="--perfetto --perfetto-proto --csv" ;;
	explain) opts="-d --device --json -o --output" ;;
	probe) opts="--api -d --device --rounds --json --quick -o --output" ;;
	compare) opts="--json" ;;
	serve) opts="-d --device -l --listen -s --source -r --role -p --pid -q --quiet --cgroup" ;;
	*) return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts --help --version" -- "$cur"))
		return
	fi
	case $cmd in
	report | export) _filedir trace ;;
	explain) _filedir '@(json|trace)' ;;
	compare) _filedir json ;;
	esac
}
complete -F _gpuprobe_trace gpuprobe-trace
