# frozen_string_literal: true

require_relative "../test_helper"
require "arena"
require "fileutils"
require "open3"
require "tmpdir"

# report.html opened by a real browser (Debian's headless Chromium) in a
# 1400 px window and a phone's 390 px one: no console errors, every chart
# laid out with visible marks and within the window, and screenshots kept in
# test/artifacts for a person to look at.
class ReportBrowserTest < Minitest::Test
  FIXTURES = File.expand_path("../fixtures/results", __dir__)
  ARTIFACTS = File.expand_path("../artifacts", __dir__)
  FLAGS = %w[--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update
    --disable-sync --no-first-run --hide-scrollbars --enable-logging=stderr --v=0].freeze

  # The page has no script; the test's own copy gets one that measures each
  # chart the window shows (a chart drawn twice shows one copy: the narrow
  # one in a narrow window) and leaves the figures in the DOM.
  PROBE = <<~JS
    <script>
      const shown = [...document.querySelectorAll("svg.chart")].filter((svg) => svg.getBoundingClientRect().width > 0);
      const charts = shown.map((svg) => {
        const marks = [...svg.querySelectorAll(".bar, .series, .point")];
        const area = marks.reduce((sum, m) => { const b = m.getBBox(); return sum + b.width * b.height + b.width + b.height; }, 0);
        const box = svg.getBoundingClientRect();
        return [marks.length, Math.round(area), Math.round(box.width), Math.round(box.height), Math.round(box.right)].join(":");
      });
      document.body.setAttribute("data-probe", charts.join(" "));
      document.body.setAttribute("data-window", document.documentElement.clientWidth);
    </script>
  JS

  def setup
    @browser = %w[chromium chromium-browser].find { |name| ENV["PATH"].split(":").any? { |d| File.executable?(File.join(d, name)) } }
    skip "chromium is not installed (apt-get install chromium, or script/setup)" unless @browser
    @dir = Dir.mktmpdir("arena-browser-")
  end

  def teardown
    FileUtils.rm_rf(@dir) if @dir
  end

  def test_steady_run_report_in_a_browser
    check("steady", screenshot: "report.png", charts: 5, phone: true)
  end

  def test_scenario_run_report_in_a_browser
    check("scenarios", screenshot: "report-scenarios.png", charts: 28)
  end

  # Soak: memory over time and latency drift per server and workload.
  def test_soak_report_in_a_browser
    check("memory-soak", screenshot: "report-soak.png", charts: 8)
  end

  # Worker-cost: PSS by worker count, the shared part shaded.
  def test_worker_cost_report_in_a_browser
    check("memory-workers", screenshot: "report-worker-cost.png", charts: 2)
  end

  # A long config label and the intervals in every cell: no table is wider
  # than a 1400 px window (each would scroll sideways).
  def test_tables_fit_a_1400_px_window
    run_dir = File.join(@dir, "wide")
    FileUtils.cp_r(File.join(FIXTURES, "steady"), run_dir)
    results = File.join(run_dir, "results.json")
    long = "passenger:min_instances=2,max_pool_size=2,concurrency_model=process,engine=builtin"
    File.write(results, File.read(results).gsub("falcon:count=2,model=forked", long))
    assert_equal 0, Arena::CLI.new(["report", run_dir, "--format", "html"], out: StringIO.new, err: StringIO.new).run
    html = File.read(File.join(run_dir, "report.html"))
    assert_includes html, long
    probe = File.join(run_dir, "widths.html")
    File.write(probe, html.sub("</body>", %(<script>document.body.setAttribute("data-widths", [...document.querySelectorAll(".scroll")].map(e => e.scrollWidth + "/" + e.clientWidth).join(" "))</script></body>)))
    dom, = chromium("--window-size=1400,900", "--dump-dom", "file://#{probe}")
    widths = dom[/data-widths="([^"]*)"/, 1]
    refute_nil widths
    widths.split.each do |pair|
      scroll, client = pair.split("/").map(&:to_i)
      assert_operator scroll, :<=, client, "a table overflows its box at 1400 px: #{widths}"
    end
  end

  private

  # phone: also in a phone's window (a default run's page; each such check
  # costs two more browser runs, so the other fixtures are looked at wide).
  def check(fixture, screenshot:, charts:, phone: false)
    run_dir = File.join(@dir, fixture)
    FileUtils.cp_r(File.join(FIXTURES, fixture), run_dir)
    assert_equal 0, Arena::CLI.new(["report", run_dir, "--format", "html"], out: StringIO.new, err: StringIO.new).run
    html = File.read(File.join(run_dir, "report.html"))
    twins = html.scan(/<svg[^>]*class="chart narrow"/).size
    assert_equal charts + twins, html.scan("<svg").size

    probe = File.join(run_dir, "probe.html")
    File.write(probe, html.sub("</body>", "#{PROBE}</body>"))
    # Headless Chromium lays a page out no narrower than 500 px when it
    # dumps the DOM (its screenshots do go down to 390): 500 is a phone's
    # layout here too (the page's narrow styles start below 640 px). A
    # chart without a narrow copy is scaled down there, so it is shorter.
    [[1400, 100], ([500, 60] if phone)].compact.each do |window, least|
      dom, log = chromium("--window-size=#{window},2000", "--dump-dom", "file://#{probe}")
      console = log.lines.grep(/CONSOLE|Uncaught|Failed to load/)
      assert_empty console, "console errors in #{fixture}/report.html"
      figures = dom[/data-probe="([^"]*)"/, 1]
      refute_nil figures, "the probe did not run:\n#{log.lines.last(5).join}"
      inside = dom[/data-window="(\d+)"/, 1].to_i
      laid_out = figures.split
      assert_equal charts, laid_out.size, "charts shown at #{window} px"
      laid_out.each_with_index do |figure, i|
        marks, area, width, height, right = figure.split(":").map(&:to_i)
        assert marks.positive? && area.positive?, "chart #{i + 1} of #{fixture} has no visible marks at #{window} px (#{figure})"
        assert width > 300 && height > least, "chart #{i + 1} of #{fixture} is not laid out at #{window} px (#{figure})"
        assert_operator right, :<=, inside, "chart #{i + 1} of #{fixture} runs past a #{window} px window"
      end
    end

    FileUtils.mkdir_p(ARTIFACTS)
    [[screenshot, "1280,2400"], ([screenshot.sub(".png", "-390.png"), "390,2400"] if phone)].compact.each do |name, size|
      path = File.join(ARTIFACTS, name)
      FileUtils.rm_f(path)
      chromium("--screenshot=#{path}", "--window-size=#{size}", "file://#{File.join(run_dir, "report.html")}")
      assert File.size?(path).to_i > 20_000, "no screenshot at #{path}"
    end
  end

  # Chromium in its own process group with a fresh profile, stopped by group
  # if it outlives the deadline.
  def chromium(*args, timeout: 90)
    profile = Dir.mktmpdir("profile-", @dir)
    argv = [@browser, *FLAGS, "--user-data-dir=#{profile}", *args]
    Open3.popen3(*argv, pgroup: true) do |stdin, stdout, stderr, wait|
      stdin.close
      out = Thread.new { stdout.read }
      err = Thread.new { stderr.read }
      unless wait.join(timeout)
        Process.kill("KILL", -wait.pid)
        wait.join
        flunk "chromium did not finish within #{timeout}s"
      end
      [out.value, err.value]
    end
  end
end
