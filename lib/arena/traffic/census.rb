# frozen_string_literal: true

require_relative "template"

module Arena
  module Traffic
    # Counts a log's requests by template, keeping for each a uniform sample
    # of its real paths (reservoir sampling, seeded: the same log gives the
    # same file) among the requests that got its most common status, so the
    # sampled paths agree with the status the workload expects.
    class Census
      # One template as found: its share of all requests read, the status
      # most of its requests got, and its sampled real paths (hot ones appear
      # as often as they were asked for).
      Found = Struct.new(:method, :template, :count, :share, :status, :statuses, :samples, keyword_init: true)

      def initialize(samples: 20, redact: [], seed: 1)
        @cap = samples
        @redact = redact
        @random = Random.new(seed)
        @counts = Hash.new(0)
        @statuses = Hash.new { |h, k| h[k] = Hash.new(0) }
        @reservoirs = Hash.new { |h, k| h[k] = [] }
        @total = 0
      end

      attr_reader :total

      def add(entry)
        key = [entry.method, Template.of(entry.target)]
        @total += 1
        @counts[key] += 1
        seen = (@statuses[key][entry.status] += 1)
        keep(@reservoirs[[key, entry.status]], seen, entry.target)
      end

      # Templates, the most requested first (ties by name, for a stable file).
      def found
        @counts.sort_by { |(method, template), count| [-count, template, method] }.map do |key, count|
          statuses = @statuses[key].sort_by { |status, n| [-n, status] }.to_h.freeze
          status = statuses.keys.first
          samples = @reservoirs[[key, status]].map { |t| Template.sample(t, redact: @redact) }.sort.freeze
          Found.new(method: key[0], template: key[1], count: count, share: count.fdiv(@total),
            status: status, statuses: statuses, samples: samples).freeze
        end
      end

      private

      def keep(reservoir, seen, target)
        if reservoir.size < @cap
          reservoir << target
        else
          slot = @random.rand(seen)
          reservoir[slot] = target if slot < @cap
        end
      end
    end
  end
end
