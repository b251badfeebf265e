# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/remote/session"
require "tmpdir"

module Arena
  # The caller's end of the agent protocol against small stand-in agents
  # (a ruby one-liner in place of ssh): what it skips and when it gives up.
  class RemoteChannelTest < Minitest::Test
    # Stands in for Ssh: the "remote command" is a local ruby script.
    FakeSsh = Struct.new(:script) do
      def argv(_host) = ["env", "-u", "RUBYOPT", "-u", "BUNDLE_GEMFILE", RbConfig.ruby, "-rjson", "-e", script]
    end

    def setup
      @dir = Dir.mktmpdir("channel-test")
    end

    def teardown = FileUtils.rm_rf(@dir)

    def channel(script) = Remote::Channel.new(host: Remote::Host.parse("ssh://h"), ssh: FakeSsh.new(script), log_path: File.join(@dir, "log"))

    ANSWER_HELLO = 'STDOUT.sync = true; r = JSON.parse(STDIN.gets); puts JSON.generate(id: r["id"], ok: true, host: "h");'

    def test_lines_that_are_not_json_objects_are_skipped
      script = 'STDOUT.sync = true; puts "null"; puts "[1]"; puts "\"banner\""; puts "7"; ' + ANSWER_HELLO + " STDIN.read"
      ch = channel(script).open(timeout: 10, heartbeat: nil)
      assert_equal "h", ch.hello["host"]
    ensure
      ch&.close(grace: 1)
    end

    def test_a_silent_agent_is_dropped_at_the_heartbeat_deadline
      ch = channel(ANSWER_HELLO + " sleep 60").open(timeout: 10, heartbeat: 0.1)
      started = Support::Clock.now
      error = assert_raises(Error) { ch.request("pids", timeout: 30, handle: "1-puma") }
      assert_operator Support::Clock.now - started, :<, 10, "waited for the request's own timeout"
      assert_match(/heartbeat deadline/, error.message)
    ensure
      ch&.close(grace: 1)
    end
  end
end
