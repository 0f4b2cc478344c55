# summarize.awk - one summary line for scenario `scen` of a bench.sh results folder.
#   awk -F'\t' -v scen=S -v unit=MB|req -v amount=N -f summarize.awk allocs.tsv instr.tsv runs.tsv
function field(s, k,   r) {
  if (match(s, "(^| )" k "=[0-9]+")) { r = substr(s, RSTART, RLENGTH); sub(/.*=/, "", r); return r + 0 }
  return -1
}
function median(a, n,   b, i, j, t) {
  for (i = 1; i <= n; i++) b[i] = a[i]
  for (i = 2; i <= n; i++) { t = b[i]; for (j = i - 1; j >= 1 && b[j] > t; j--) b[j + 1] = b[j]; b[j + 1] = t }
  return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
}
function ratio(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
FILENAME ~ /allocs\.tsv$/ && $1 == scen {
  own[$2] = field($3, "own_allocs"); all[$2] = field($3, "allocs"); peak[$2] = field($3, "peak"); next
}
FILENAME ~ /instr\.tsv$/ && $1 == scen { ir[$2] = $3; next }
FILENAME ~ /runs\.tsv$/ && $1 == scen {
  split($4, f, " ")
  i = $3 + 0; if (i > n) n = i
  if (f[5] != 0) fails++
  if ($2 == "A") { aw[i] = f[1]; ac[i] = f[2] + f[3]; ar[i] = f[4] / 1024 }
  else { bw[i] = f[1]; bc[i] = f[2] + f[3]; br[i] = f[4] / 1024 }
}
END {
  if (n == 0) exit
  for (i = 1; i <= n; i++) {
    rw[i] = bw[i] > 0 ? aw[i] / bw[i] : 0; rc[i] = bc[i] > 0 ? ac[i] / bc[i] : 0
  }
  mw = median(aw, n); mc = median(ac, n)
  if (unit == "MB") rate = sprintf("%.0f %.0f MB/s", amount / mw / 1e6, amount / median(bw, n) / 1e6)
  else rate = sprintf("%.0f %.0f req/s", amount / mw, amount / median(bw, n))
  irs = ""
  if (("A" in ir) && ("B" in ir)) irs = sprintf("; Ir %s %s %s", ir["A"], ir["B"], ratio(ir["A"], ir["B"]))
  printf "%-17s | %7.3f %7.3f %6.2f | %7.3f %7.3f %6.2f | %5.1f %5.1f %s | %10s %10s | %11s %11s | %7.0f %7.0f %6s | %s; %d%s\n",
    scen, mw, median(bw, n), median(rw, n), mc, median(bc, n), median(rc, n),
    median(ar, n), median(br, n), ratio(median(ar, n), median(br, n)),
    ("A" in own) ? own["A"] : "-", ("B" in own) ? own["B"] : "-",
    ("A" in all) ? all["A"] : "-", ("B" in all) ? all["B"] : "-",
    ("A" in peak) ? peak["A"] / 1024 : 0, ("B" in peak) ? peak["B"] / 1024 : 0,
    ratio(peak["A"], peak["B"]), rate, fails + 0, irs
}
