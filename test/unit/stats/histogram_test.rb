# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/remote/merge"
require "json"
require "open3"
require "socket"
require "tmpdir"

module Arena
  # The Ruby decoder agrees with the engine to the microsecond: each engine's
  # own percentiles come out of its decoded histogram, and a merge in Ruby
  # equals `arena-load --merge` of the same documents.
  class RemoteHistogramTest < Minitest::Test
    ENGINE = ENV.fetch("ARENA_LOAD", TestHelp.engine_path)

    def test_decode_gives_the_engines_own_percentiles
      docs.each do |doc|
        hist = Stats::Histogram.decode(doc.fetch("latency_histogram"))
        assert_equal doc["latency_us"].slice("count", "min", "max", "p50", "p75", "p90", "p99", "p999", "p9999"),
          hist.latency_us.slice("count", "min", "max", "p50", "p75", "p90", "p99", "p999", "p9999")
        assert_in_delta doc.dig("latency_us", "stdev"), hist.latency_us["stdev"], 0.11
        doc["timeline"].each do |second|
          next unless second["histogram"]
          h = Stats::Histogram.decode(second["histogram"])
          assert_equal [second["completed"], second["p50_us"], second["p99_us"]], [h.total, h.percentile(50), h.percentile(99)]
        end
      end
    end

    def test_ruby_merge_equals_the_engines_merge
      a, b = docs
      merged = Remote::Merge.call([a, b], hosts: %w[a b])
      engine, err, status = Open3.capture3(ENGINE, "--merge", path_of(a), path_of(b))
      assert status.success?, err
      engine = JSON.parse(engine)
      assert_equal engine["latency_us"], merged["latency_us"]
      assert_equal engine["latency_histogram"], merged["latency_histogram"]
      assert_equal a.dig("requests", "completed") + b.dig("requests", "completed"), merged.dig("requests", "completed")
      assert_equal engine["timeline"].map { |s| s.slice("t", "completed", "errors", "p50_us", "p99_us") },
        merged["timeline"].map { |s| s.slice("t", "completed", "errors", "p50_us", "p99_us") }
      merged["timeline"].each_with_index do |s, t|
        assert_equal [a, b].sum { |d| d["timeline"][t]&.fetch("completed") || 0 }, s["completed"]
      end
      assert_equal %w[a b], merged["loaders"].map { |l| l["host"] }
    end

    def test_encode_decode_roundtrip_and_exact_merge
      a = hist({10 => 5, 1500 => 2, 16_000 => 1}, min: 10, max: 400_000_000)
      b = hist({10 => 1, 900 => 3}, min: 10, max: 2_000)
      again = Stats::Histogram.decode(JSON.parse(JSON.generate(a.to_h)))
      assert_equal a.counts, again.counts
      assert_equal [a.min, a.max, a.sum, a.sum_sq], [again.min, again.max, again.sum, again.sum_sq]
      merged = a.merge(b)
      assert_equal({10 => 6, 900 => 3, 1500 => 2, 16_000 => 1}, merged.counts)
      assert_equal 12, merged.total
      assert_equal 400_000_000, merged.percentile(100)
    end

    def test_rejects_bad_input_with_a_reason
      good = hist({1 => 2}, min: 1, max: 1).to_h
      {"encoding" => "x", "count" => 3, "counts" => "AQ*=", "sub_bits" => 40, "min" => -1}.each do |key, bad|
        error = assert_raises(Stats::Histogram::Invalid) { Stats::Histogram.decode(good.merge(key => bad)) }
        refute_empty error.message
      end
      assert_raises(Stats::Histogram::Invalid) { Stats::Histogram.decode(good.merge("counts" => "/////w8C", "count" => 2)) }
      assert_raises(Error) { Remote::Merge.call([{"latency_us" => {}}]) }
    end

    private

    def hist(counts, min:, max:)
      Stats::Histogram.new(sub_bits: 11, highest: 100_000_000, counts: counts, min: min, max: max,
        sum: counts.sum { |i, c| i * c }, sum_sq: counts.sum { |i, c| i * i * c }.to_f)
    end

    def path_of(doc) = @paths.fetch(doc.object_id)

    # Two engine runs with different connection counts against a small
    # loopback server whose answers take varying time.
    def docs
      @docs ||= begin
        @dir = Dir.mktmpdir("remote-hist")
        @paths = {}
        server = TCPServer.new("127.0.0.1", 0)
        port = server.addr[1]
        acceptor = Thread.new { serve(server) }
        [["-c", "2"], ["-c", "6"]].each_with_index.map do |args, i|
          out, err, status = Open3.capture3(ENGINE, "--json", "--histograms", "-d", "1.2", "-w", "0", *args,
            "http://127.0.0.1:#{port}/")
          assert status.success?, "engine failed: #{err}"
          doc = JSON.parse(out)
          File.write(path = File.join(@dir, "#{i}.json"), out)
          @paths[doc.object_id] = path
          doc
        end
      ensure
        acceptor&.kill
        server&.close
      end
    end

    def serve(server)
      loop do
        Thread.new(server.accept) do |c|
          n = 0
          while (line = c.gets)
            line = c.gets until line == "\r\n" || line.nil?
            sleep(((n += 1) % 7).zero? ? 0.004 : 0.0002)
            c.write "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
          end
        rescue IOError, SystemCallError
          nil
        ensure
          c.close
        end
      end
    end

    def teardown
      FileUtils.rm_rf(@dir) if @dir
    end
  end
end
