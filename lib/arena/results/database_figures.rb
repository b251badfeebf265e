# frozen_string_literal: true

module Arena
  module Results
    # What the run's throwaway database saw during one measurement: the
    # client connections the server config held open at its end, and the
    # app's statements (pg_stat_statements), per request (requests: those
    # the load sent, its warm-up's included).
    DatabaseFigures = Struct.new(:kind, :connections, :queries, :requests, :queries_per_request, keyword_init: true) do
      def self.from_h(h)
        return nil unless h.is_a?(Hash)
        new(kind: h["kind"], connections: h["connections"], queries: h["queries"], requests: h["requests"],
          queries_per_request: h["queries_per_request"]).freeze
      end

      def to_record
        {"kind" => kind, "connections" => connections, "queries" => queries, "requests" => requests,
         "queries_per_request" => queries_per_request}.compact
      end
    end
  end
end
