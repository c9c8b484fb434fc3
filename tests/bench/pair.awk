#!/usr/bin/awk -f
# The text peer of make bench (tests/bench/text.sh): what a user would write
# instead of report for trace-cmd report text: each kvm_exit paired with the
# next kvm_entry of its thread, count/min/max/sum per reason (times in s).
/ kvm_exit: / {
	for (i = 1; i <= NF; i++) if ($i == "kvm_exit:") break
	ts = $(i - 1); sub(":", "", ts); tid = $1; sub(/.*-/, "", tid)
	for (j = i; j <= NF; j++) if ($j == "reason") { r = $(j + 1); break }
	start[tid] = ts; reason[tid] = r; next
}
/ kvm_entry: / {
	for (i = 1; i <= NF; i++) if ($i == "kvm_entry:") break
	ts = $(i - 1); sub(":", "", ts); tid = $1; sub(/.*-/, "", tid)
	if (tid in start) {
		r = reason[tid]; d = ts - start[tid]; delete start[tid]
		n[r]++; s[r] += d; s2[r] += d * d
		if (!(r in mn) || d < mn[r]) mn[r] = d
		if (d > mx[r]) mx[r] = d
	}
}
END { for (r in n) printf "%s %d %.6f %.6f %.6f\n", r, n[r], mn[r], mx[r], s[r] }
