# frozen_string_literal: true

module Arena
  module Traffic
    # A request's template: its path with the segments that name one record
    # (numbers, UUIDs) made `:id`, and its query's keys (sorted) with their
    # values made `:key`. Requests of one template are one workload; their real
    # paths are kept as its samples.
    module Template
      ID = /\A(?:\d+|\h{8}-\h{4}-\h{4}-\h{4}-\h{12})\z/

      def self.of(target)
        path, query = target.split("?", 2)
        path = path.split("/", -1).map { |seg| ID.match?(seg) ? ":id" : seg }.join("/")
        keys = pairs(query).map(&:first).uniq.sort
        keys.empty? ? path : "#{path}?#{keys.map { |k| "#{k}=:#{k}" }.join("&")}"
      end

      # The target as it will be sent: the values of the redacted keys dropped
      # (the key stays, so the app takes the same branch), and spaces or
      # control characters (which a request line cannot carry) escaped.
      def self.sample(target, redact: [])
        path, query = target.split("?", 2)
        return escape(target) if query.nil? || redact.empty?
        kept = query.split("&").map do |pair|
          key = pair.split("=", 2).first
          redact.include?(key) ? "#{key}=" : pair
        end
        escape("#{path}?#{kept.join("&")}")
      end

      def self.pairs(query)
        return [] if query.nil? || query.empty?
        query.split("&").reject(&:empty?).map { |pair| pair.split("=", 2) }
      end

      def self.escape(target) = target.gsub(/[\s\x00-\x1f\x7f]/) { |c| format("%%%02X", c.ord) }
    end
  end
end
