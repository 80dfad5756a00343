// `kern run --html FILE`: one self-contained HTML page of a run (no network, no external script
// or font): the source with each line's counters and share of the modelled time as a heat scale,
// a click on a line opening its sites' lane maps (the first and the worst warp, html_lanes.cpp);
// the launches with the occupancy calculator's graphs; the timeline; the advisor's findings
// linked to their lines; the device profile.
#include "runtime/html.h"
#include "runtime/timing.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace kern::runtime {

namespace {

const char *kStyle = R"(
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#1d3557;color:#fff;padding:12px 20px}
header h1{font-size:18px;margin:0 0 4px}
main{padding:8px 20px 40px}
h2{font-size:16px;border-bottom:1px solid #ccc;padding-bottom:2px;margin-top:28px}
.line{display:block;border-left:3px solid transparent}
.row{display:grid;grid-template-columns:48px 70px minmax(300px,max-content) 1fr;gap:8px;align-items:baseline}
.n{color:#888;text-align:right;font:12px monospace}
.code{font:13px/1.35 monospace;white-space:pre}
.note{font-size:12px;color:#555}
.heat{height:10px;background:#eee;position:relative;top:1px}
.heat div{height:10px;background:#e63946}
details.line>summary{list-style:none;cursor:pointer}
details.line>summary::-webkit-details-marker{display:none}
details.line>summary:hover{background:#f0f4ff}
details.line[open]{border-left-color:#457b9d;background:#fff}
.site{margin:6px 0 14px 60px;padding:6px 10px;background:#fff;border:1px solid #ddd;border-radius:4px}
.site h3{font-size:13px;margin:2px 0}
.site p{margin:2px 0;font-size:12px;color:#444}
svg text{font:10px sans-serif;fill:#333}
svg text.label{font-weight:600}
svg text.num{text-anchor:middle}
svg text.end{text-anchor:end}
svg text.caption{text-anchor:start}
rect.lane{fill:#a8dadc;stroke:#457b9d}
rect.lane.off{fill:#fff;stroke:#bbb}
rect.lane.taken{fill:#8ac926}
rect.lane.nottaken{fill:#ff9f1c}
rect.bank{fill:#f1faee;stroke:#457b9d}
rect.bank.idle{fill:#fff;stroke:#ddd}
rect.transaction{fill:#f1faee;stroke:#1d3557}
rect.used{fill:#2a9d8f}
line.wire{stroke:#999;stroke-width:1}
line.halfwarp{stroke:#e63946;stroke-dasharray:4 3}
svg .s0{stroke:#1d3557;fill:#1d3557}svg .s1{stroke:#e63946;fill:#e63946}
svg .s2{stroke:#2a9d8f;fill:#2a9d8f}svg .s3{stroke:#f4a261;fill:#f4a261}
svg .s4{stroke:#6a4c93;fill:#6a4c93}svg .s5{stroke:#8ac926;fill:#8ac926}
svg .s6{stroke:#1982c4;fill:#1982c4}svg .s7{stroke:#b5838d;fill:#b5838d}
polyline.curve{fill:none;stroke:#1d3557;stroke-width:1.5}
line.grid{stroke:#ddd}
circle.point{fill:#e63946}
rect.copy{fill:#457b9d}rect.kernel{fill:#e63946}rect.failed{fill:#999}
table{border-collapse:collapse;font-size:12px}
td,th{border:1px solid #ddd;padding:2px 6px;text-align:left}
.advice li{margin:4px 0}
html.only main>*{display:none}html.only main>.source{display:block}
html.only .source>.line{display:none}html.only .source>.line.shown{display:block}
)";

// Opens the line an advice link (or the address) names; records script errors for the tests.
const char *kScript = R"(
(function(){
  var errors=[];
  window.addEventListener('error',function(e){errors.push(String(e.message));
    document.documentElement.setAttribute('data-errors',errors.join('; '));});
  // #L12 opens line 12 and scrolls to it; #only-L12 shows line 12 alone, opened.
  function openLine(){var h=location.hash.slice(1);var only=h.indexOf('only-')===0;
    if(only){h=h.slice(5);}
    var el=h&&document.getElementById(h);
    if(!el||el.tagName!=='DETAILS'){return;}
    el.open=true;
    if(only){document.documentElement.className='only';el.className+=' shown';}
    else{el.scrollIntoView();}}
  window.addEventListener('hashchange',openLine);
  document.addEventListener('DOMContentLoaded',function(){openLine();
    document.documentElement.setAttribute('data-ready','1');});
})();
)";

/// A site's totals in a sentence.
std::string siteCounters(const DeviceProfile &dev, const SiteCounters &c) {
  const std::string text = lineCountersText(c, dev);
  return text.empty() ? "" : "<p>" + htmlEscape(text) + "</p>";
}

std::string warpTitle(const Runtime &rt, const char *which, uint64_t key, uint64_t launch) {
  return "<p><b>" + std::string(which) + "</b>: " + htmlEscape(warpName(rt, key, launch)) + "</p>";
}

/// The launches a report covers and their counters summed per site.
struct Scope {
  std::vector<size_t> launches;
  std::vector<SiteCounters> totals;
};

/// The sites of one line: lane maps of accesses and branches.
std::string lineSites(const ReportInput &in, const Scope &scope, const std::vector<size_t> &sites) {
  const Runtime &rt = *in.rt;
  const std::vector<SiteCapture> &captures = rt.counters().captures();
  const std::vector<AccessSample> &samples = rt.counters().samples();
  const std::vector<SiteCounters> &totals = scope.totals;
  std::string out;
  for (size_t i : sites) {
    const SiteInfo &s = in.sites[i];
    const SiteCounters c = i < totals.size() ? totals[i] : SiteCounters{};
    const std::string head = "<div class=\"site\" data-site=\"" + u(i) + "\"><h3>col " + u(s.col) +
                             ": " + htmlEscape(s.what) + "</h3>";
    if (i < captures.size() && captures[i].first.key != UINT64_MAX) {
      const SiteCapture &cap = captures[i];
      out += head + siteCounters(rt.device(), c) +
             warpTitle(rt, "first warp", cap.first.key, cap.first.launch) +
             laneMapSvg(rt.device(), cap.first);
      if (cap.worst.cost != cap.first.cost)
        out += warpTitle(rt, "worst warp", cap.worst.key, cap.worst.launch) +
               laneMapSvg(rt.device(), cap.worst);
      else
        out += "<p>No warp costs more than the first.</p>";
      out += "</div>";
    } else if ((s.kind == "branch" || s.kind == "loop") && c.branchesExecuted > 0) {
      out += head + siteCounters(rt.device(), c);
      if (i < samples.size() && samples[i].key != UINT64_MAX)
        out += warpTitle(rt, "first warp that split", samples[i].key, samples[i].launch) +
               branchMapSvg(samples[i]);
      else
        out += "<p>No warp split here.</p>";
      out += "</div>";
    }
  }
  return out;
}

std::string sourceSection(const ReportInput &in, const Scope &scope) {
  const Runtime &rt = *in.rt;
  std::map<uint32_t, SiteCounters> byLine;
  std::map<uint32_t, std::vector<size_t>> sitesOf;
  const std::vector<SiteCounters> &totals = scope.totals;
  for (size_t i = 0; i < in.sites.size(); ++i) {
    if (in.sites[i].fileId != in.mainFileId)
      continue;
    sitesOf[in.sites[i].line].push_back(i);
    if (i < totals.size())
      byLine[in.sites[i].line] += totals[i];
  }
  double total = 0;
  const std::vector<double> seconds = siteSeconds(rt, scope.launches, total);
  std::map<uint32_t, double> timeOf;
  for (size_t s = 0; s < seconds.size() && s < in.sites.size(); ++s)
    if (in.sites[s].fileId == in.mainFileId)
      timeOf[in.sites[s].line] += seconds[s];

  std::string out = "<h2>Source</h2><p>Each line's counters over the run; the bar is its share "
                    "of the kernels' modelled time. Click a line to see its accesses lane by "
                    "lane.</p><div class=\"source\">";
  std::istringstream src(in.source);
  std::string code;
  for (uint32_t line = 1; std::getline(src, code); ++line) {
    const double share = total > 0 && timeOf.count(line) ? timeOf[line] / total : 0;
    const std::string note =
        byLine.count(line) ? lineCountersText(byLine[line], rt.device()) : std::string();
    const std::string row =
        "<div class=\"row\"><span class=\"n\">" + u(line) + "</span><span class=\"heat\"" +
        (share > 0 ? " title=\"" + formatNumber("%.1f", 100 * share) + "% of the modelled time\""
                   : "") +
        "><div style=\"width:" + formatNumber("%.0f", 100 * share) +
        "%\"></div></span><span class=\"code\">" + htmlEscape(code) +
        "</span><span class=\"note\">" + htmlEscape(note) +
        (share >= 0.005 ? (note.empty() ? "time " : ", time ") + formatNumber("%.1f%%", 100 * share)
                        : "") +
        "</span></div>";
    const std::string sites = sitesOf.count(line) ? lineSites(in, scope, sitesOf[line]) : "";
    if (sites.empty())
      out += "<div class=\"line\" id=\"L" + u(line) + "\">" + row + "</div>";
    else
      out += "<details class=\"line\" id=\"L" + u(line) + "\"><summary>" + row + "</summary>" +
             sites + "</details>";
  }
  return out + "</div>";
}

std::string launchesSection(const Runtime &rt, const Scope &scope) {
  std::string out = "<h2>Launches</h2><table><tr><th>#</th><th>kernel</th><th>grid</th>"
                    "<th>block</th><th>modelled time</th><th>bound by</th><th>occupancy</th>"
                    "</tr>";
  auto dim = [](const uint32_t d[3]) {
    return "(" + u(d[0]) + "," + u(d[1]) + "," + u(d[2]) + ")";
  };
  std::map<std::string, size_t> firstOf;
  for (size_t i : scope.launches) {
    const LaunchRecord &l = rt.launches()[i];
    firstOf.try_emplace(l.kernel, i);
    out += "<tr><td>" + u(i) + "</td><td>" + htmlEscape(l.kernel) + "</td><td>" + dim(l.grid) +
           "</td><td>" + dim(l.block) + "</td><td>" +
           (l.profiled ? formatSeconds(l.modelledSeconds) : std::string("not counted")) +
           "</td><td>" + (l.profiled ? boundName(l.time.bound, l.time.pipe) : "") + "</td><td>" +
           (l.occupancy.blocksPerSM ? formatNumber("%.1f %%", 100 * l.occupancy.occupancy) + " (" +
                                          occupancyLimitName(l.occupancy.limit) + ")"
                                    : std::string(l.error ? "did not run" : "")) +
           "</td></tr>";
  }
  out += "</table>";
  for (const auto &[kernel, i] : firstOf) {
    const LaunchRecord &l = rt.launches()[i];
    if (l.occupancy.blocksPerSM == 0)
      continue;
    out += "<h3>Occupancy of " + htmlEscape(kernel) + " (launch " + u(i) +
           "): " + u(static_cast<uint64_t>(l.occupancy.blocksPerSM)) +
           " blocks per SM, limited by " + occupancyLimitName(l.occupancy.limit) +
           "</h3><div class=\"charts\">" + occupancyChartsSvg(rt.device(), l) + "</div>";
  }
  return out;
}

std::string adviceSection(const ReportInput &in, const Scope &scope, bool whole) {
  std::vector<std::string> findings;
  if (whole)
    findings = advise(in);
  else
    for (size_t i : scope.launches)
      for (std::string &f : adviseLaunch(in, i))
        findings.push_back(std::move(f));
  if (findings.empty())
    return "";
  std::string out = "<h2>Advice</h2><ul class=\"advice\">";
  const std::string prefix = in.program + ":";
  for (const std::string &f : findings) {
    // "FILE:LINE: advice: ..." links to the line when FILE is the main file.
    unsigned line = 0;
    if (f.compare(0, prefix.size(), prefix) == 0)
      line = static_cast<unsigned>(std::strtoul(f.c_str() + prefix.size(), nullptr, 10));
    out +=
        "<li>" +
        (line ? "<a href=\"#L" + u(line) + "\">line " + u(line) + "</a>: " : std::string()) +
        htmlEscape(f.substr(f.find("advice: ") == std::string::npos ? 0 : f.find("advice: ") + 8)) +
        "</li>";
  }
  return out + "</ul>";
}

std::string deviceSection(const DeviceProfile &d) {
  auto row = [](const std::string &k, const std::string &v) {
    return "<tr><td>" + k + "</td><td>" + htmlEscape(v) + "</td></tr>";
  };
  return "<h2>Device</h2><table>" + row("GPU", d.marketingName + " (" + d.name + ")") +
         row("compute capability", u(d.ccMajor) + "." + u(d.ccMinor)) + row("SMs", u(d.smCount)) +
         row("threads per SM", u(d.maxThreadsPerSM)) + row("blocks per SM", u(d.maxBlocksPerSM)) +
         row("registers per SM", u(d.registersPerSM)) +
         row("shared memory per SM", formatBytes(d.sharedPerSM)) +
         row("shared banks", u(d.sharedBanks) + " (" + bankRuleName(d.bankRule) + ")") +
         row("global coalescing", globalRuleName(d.globalRule)) +
         row("PCIe", "gen " + u(d.pcieGeneration) + " x" + u(d.pcieLanes)) + "</table>";
}

} // namespace

std::string htmlComparison(const std::string &program, const std::string &table,
                           const std::vector<std::pair<std::string, std::string>> &pages) {
  std::string out =
      "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>kern: " +
      htmlEscape(program) + " on " + u(pages.size()) + " devices</title><style>" + kStyle +
      ".switch button{font:14px system-ui;margin:0 4px 0 0;padding:4px 12px;border:1px solid "
      "#457b9d;background:#fff;cursor:pointer}.switch button.on{background:#457b9d;color:#fff}"
      "iframe.device{width:100%;height:80vh;border:1px solid #ccc;display:none}"
      "iframe.device.on{display:block}pre.table{font:12px monospace;background:#fff;padding:8px;"
      "border:1px solid #ddd;overflow:auto}</style><script>" +
      kScript +
      "function show(i){var f=document.querySelectorAll('iframe.device'),b=document."
      "querySelectorAll('.switch button');for(var k=0;k<f.length;k++){f[k].className='device'+"
      "(k===i?' on':'');b[k].className=k===i?'on':'';}}</script></head><body><header><h1>" +
      htmlEscape(program) + " on " + u(pages.size()) + " devices</h1>the same run, side by side" +
      "</header><main><h2>Counters side by side</h2><pre class=\"table\">" + htmlEscape(table) +
      "</pre><h2>Each device's report</h2><div class=\"switch\">";
  for (size_t i = 0; i < pages.size(); ++i)
    out += "<button type=\"button\"" + std::string(i == 0 ? " class=\"on\"" : "") +
           " onclick=\"show(" + u(i) + ")\">" + htmlEscape(pages[i].first) + "</button>";
  out += "</div>";
  for (size_t i = 0; i < pages.size(); ++i)
    out += "<iframe class=\"device" + std::string(i == 0 ? " on" : "") + "\" title=\"" +
           htmlEscape(pages[i].first) + "\" srcdoc=\"" + htmlEscape(pages[i].second) +
           "\"></iframe>";
  return out + "</main></body></html>\n";
}

std::string htmlReport(const ReportInput &in, const std::vector<size_t> &launches) {
  const Runtime &rt = *in.rt;
  Scope scope;
  const bool whole = launches.empty();
  if (whole) {
    for (size_t i = 0; i < rt.launches().size(); ++i)
      scope.launches.push_back(i);
    scope.totals = rt.counters().program().sites;
  } else {
    scope.launches = launches;
    for (size_t i : launches) {
      const std::vector<SiteCounters> &sites = rt.counters().launch(i).sites;
      if (scope.totals.size() < sites.size())
        scope.totals.resize(sites.size());
      for (size_t k = 0; k < sites.size(); ++k)
        scope.totals[k] += sites[k];
    }
  }
  const DeviceProfile &d = rt.device();
  const TransferTotals t = transferTotals(rt);
  std::string out = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>kern: " +
                    htmlEscape(in.program) + "</title><style>" + kStyle + "</style><script>" +
                    kScript + "</script></head><body><header><h1>" + htmlEscape(in.program) +
                    " on " + htmlEscape(d.name) + "</h1>" + htmlEscape(d.marketingName) + ", cc " +
                    u(d.ccMajor) + "." + u(d.ccMinor) + " &middot; " + u(scope.launches.size()) +
                    " launches, " + formatSeconds(kernelSeconds(rt)) + " modelled kernel time, " +
                    formatSeconds(t.seconds[0] + t.seconds[1]) + " of transfers</header><main>";
  out += sourceSection(in, scope);
  out += launchesSection(rt, scope);
  out += "<h2>Timeline</h2><p>Transfers and launches at their modelled start and duration; "
         "hover for each one's figures.</p>" +
         timelineSvg(rt);
  out += adviceSection(in, scope, whole);
  out += deviceSection(d);
  return out + "</main></body></html>\n";
}

} // namespace kern::runtime
