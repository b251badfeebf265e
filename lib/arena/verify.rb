# frozen_string_literal: true

# Does the server answer correctly: HTTP probe and parser, workload checks, transport, TFB rules.
require_relative "verify/http_parser"
require_relative "verify/http_probe"
require_relative "verify/tfb"
require_relative "verify/transport_check"
require_relative "verify/verify"
