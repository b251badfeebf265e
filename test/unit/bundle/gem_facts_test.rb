# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "socket"

module Arena
  # A server gem's release facts: its installed spec's date (RubyGems'
  # reproducible-build placeholder, 1980-01-02, is no date) and
  # rubygems.org's versions when they answer within the timeout; an
  # unreachable or turned-off registry is nil, quietly.
  class GemFactsTest < Minitest::Test
    cover "Arena::Bundle::GemFacts*"

    VERSIONS = [{"created_at" => "2026-10-26T15:57:27Z", "number" => "0.8.3", "prerelease" => false, "ruby_version" => ">= 3.2.0"},
      {"created_at" => "2024-01-21T10:00:00Z", "number" => "0.7.60", "prerelease" => false, "ruby_version" => ">= 2.3.0"},
      {"created_at" => "2025-12-01T10:00:00Z", "number" => "0.8.0.rc1", "prerelease" => true, "ruby_version" => nil}].freeze

    def setup
      @dir = Dir.mktmpdir("gem-facts")
      FileUtils.mkdir_p(File.join(@dir, "gems", "iodine-0.7.60"))
      FileUtils.mkdir_p(File.join(@dir, "specifications"))
    end

    def teardown
      FileUtils.rm_rf(@dir)
    end

    def spec(date) = File.write(File.join(@dir, "specifications", "iodine-0.7.60.gemspec"), "Gem::Specification.new do |s|\n  s.date = \"#{date}\"\nend\n")

    # A registry on a local port that answers once with `body`.
    def registry(body, status: "200 OK")
      server = TCPServer.new("127.0.0.1", 0)
      thread = Thread.new do
        client = server.accept
        @asked = client.gets
        client.write("HTTP/1.1 #{status}\r\nContent-Type: application/json\r\nContent-Length: #{body.bytesize}\r\nConnection: close\r\n\r\n#{body}")
        client.close
      end
      yield "http://127.0.0.1:#{server.addr[1]}/api/v1/versions/%s.json"
    ensure
      thread&.join(2)
      server&.close
    end

    def call(url) = Bundle::GemFacts.new(url: url, timeout: 1).call(name: "iodine", version: "0.7.60", path: File.join(@dir, "gems", "iodine-0.7.60"))

    def test_the_specs_date_and_the_registrys_versions
      spec("2024-01-21")
      facts = registry(JSON.generate(VERSIONS)) { |url| call(url) }
      assert_equal "GET /api/v1/versions/iodine.json HTTP/1.1\r\n", @asked
      assert_equal "2024-01-21", facts.date
      assert_equal [["0.8.3", "2026-10-26", false, ">= 3.2.0"], ["0.7.60", "2024-01-21", false, ">= 2.3.0"], ["0.8.0.rc1", "2025-12-01", true, nil]],
        facts.releases.map { |r| [r.version, r.date, r.prerelease, r.ruby] }
    end

    def test_the_placeholder_date_is_no_date_and_the_registry_gives_it
      spec("1980-01-02")
      facts = registry(JSON.generate(VERSIONS)) { |url| call(url) }
      assert_nil facts.date
      assert_equal "2024-01-21", facts.released
      # A registry entry without a date (one platform's, or all: seen for puma) is no date.
      undated = [VERSIONS[1].merge("created_at" => nil, "platform" => "java"), *VERSIONS]
      assert_equal "2024-01-21", registry(JSON.generate(undated)) { |url| call(url) }.released
      none = registry(JSON.generate(VERSIONS.map { |v| v.merge("created_at" => nil) })) { |url| call(url) }
      assert_nil none.released
      assert_nil none.releases.first.date
    end

    def test_an_unreachable_or_turned_off_registry_is_quietly_nothing
      spec("2024-01-21")
      port = TCPServer.new("127.0.0.1", 0).then { |s| s.addr[1].tap { s.close } }
      assert_nil call("http://127.0.0.1:#{port}/%s.json").releases
      assert_nil call("off").releases
      assert_nil registry("nope", status: "500 Internal Server Error") { |url| call(url) }.releases
      assert_nil registry("{\"not\": \"a list\"}") { |url| call(url) }.releases
      assert_equal "2024-01-21", call("off").released
    end
  end
end
