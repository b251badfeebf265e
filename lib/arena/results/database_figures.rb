# frozen_string_literal: true

module Arena
  module Results
    # What the run's throwaway database saw during one measurement: the
    # client connections the server config held open at its end, and the
    # transactions committed or rolled back, per request (requests: the
    # load's responses with its warm-up's, estimated from the measured rate).
    DatabaseFigures = Struct.new(:kind, :connections, :transactions, :requests, :transactions_per_request, keyword_init: true) do
      def self.from_h(h)
        return nil unless h.is_a?(Hash)
        new(kind: h["kind"], connections: h["connections"], transactions: h["transactions"], requests: h["requests"],
          transactions_per_request: h["transactions_per_request"]).freeze
      end

      def to_record
        {"kind" => kind, "connections" => connections, "transactions" => transactions, "requests" => requests,
         "transactions_per_request" => transactions_per_request}.compact
      end
    end
  end
end
