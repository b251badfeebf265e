# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "tmpdir"

# Values no run can honour fail at plan time, in one line (UsageError: exit
# 2), before any server starts: the engine's own limits, ports, process
# counts, header injection, and a requests file's aliases and dates.
class InputBoundsTest < Minitest::Test
  def build(*flags)
    Arena::Planner::Builder.new(machine: Arena::Plan::Machine.new(cores: 2)).parse(flags, banner: "test").build
  end

  def refused(*flags, pattern)
    error = assert_raises(Arena::UsageError, flags.join(" ")) { build(*flags) }
    assert_match pattern, error.message, flags.join(" ")
  end

  def test_server_settings_have_ceilings
    refused("--servers", "puma:workers=100000", /workers must be at most 1024/)
    refused("--servers", "thin:servers=5000", "--front", "nginx", /servers must be at most 256/)
    refused("--servers", "puma:threads=99999999999", /threads must be at most 4096/)
  end

  def test_the_engines_own_limits_at_plan_time
    refused("--servers", "puma", "-d", "1e8", /-d must be greater than 0 and at most 10000000\z/)
    refused("--servers", "puma", "--timeout", "1e9", /--timeout must be greater than 0 and at most 10000000\z/)
    refused("--servers", "puma", "--port", "-5", /--port -5: a TCP port/)
    refused("--servers", "puma", "--port", "70000", /--port 70000/)
  end

  def test_workload_expectations_and_injection
    {"/x=99999" => /status is between 100 and 599/, "/x=200:" => /body check after ':' is empty/,
     "/a\r\nX: y" => /no spaces or control characters/}.each do |spec, pattern|
      error = assert_raises(Arena::UsageError, spec) { Arena::Plan::Workloads.custom(spec) }
      assert_match pattern, error.message
    end
    refused("--servers", "puma", "--header", "X-A: 1\r\nX-B: 2", /write 'Name: value'/)
  end

  def test_out_pointing_at_a_file
    Dir.mktmpdir do |dir|
      file = File.join(dir, "results.json").tap { |f| File.write(f, "{}") }
      refused("--servers", "puma", "--out", file, /is a file, not a directory/)
      refused("--servers", "puma", "--out", File.join(file, "sub"), /is a file, not a directory/)
    end
  end

  def test_requests_file_aliases_and_dates_are_line_numbered
    Dir.mktmpdir do |dir|
      {"requests:\n  a: &x {path: /a}\n  b: *x\n" => /:3: an alias/,
       "requests:\n  a:\n    path: /a\n    expect_body: 2024-01-02\n" => /:4: .*Date/,
       "requests:\n  a: {path: \"/a\\r\\nX: y\"}\n" => /control characters/}.each do |yaml, pattern|
        file = File.join(dir, "requests.yml").tap { |f| File.write(f, yaml) }
        error = assert_raises(Arena::UsageError, yaml) { Arena::Plan::RequestsFile.load(file) }
        assert_match pattern, error.message, yaml
      end
    end
  end
end
