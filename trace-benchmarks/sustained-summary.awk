# The sustained step's summary (./bench): trtrace's records written per second divided by Log4j2's in the same
# round, per round, then the median of those ratios, their range and how many rounds reached the goal's 1.5.
# Input: ./bench's sustained.txt ("[sdk] round N, load ..." lines, then each run's "[sdk] RESULT written_records_per_s=...").
/^\[[a-z0-9]+\] round [0-9]+,/ { sdk = substr($1, 2, length($1) - 2); round = $3 + 0 }
/ RESULT written_records_per_s=/ {
  split($0, kv, "written_records_per_s="); split(kv[2], v, " ")
  rate[sdk, round] = v[1] + 0; if (round > rounds) rounds = round
}
END {
  n = 0; held = 0
  for (r = 1; r <= rounds; r++) {
    if (!((("trtrace", r) in rate) && (("log4j2", r) in rate)) || rate["log4j2", r] <= 0) continue
    q = rate["trtrace", r] / rate["log4j2", r]
    printf "sustained round %d: trtrace %d, log4j2 %d records/s: %.2f\n", r, rate["trtrace", r], rate["log4j2", r], q
    ratios[++n] = q; if (q >= 1.5) held++
  }
  if (n == 0) { print "sustained: no round with both trtrace and log4j2 results"; exit }
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (ratios[j] < ratios[i]) { t = ratios[i]; ratios[i] = ratios[j]; ratios[j] = t }
  median = n % 2 ? ratios[(n + 1) / 2] : (ratios[n / 2] + ratios[n / 2 + 1]) / 2
  printf "sustained trtrace / log4j2: median %.2f (%.2f-%.2f) over %d paired rounds, %d of %d at or above 1.5\n", median, ratios[1], ratios[n], n, held, n
}
