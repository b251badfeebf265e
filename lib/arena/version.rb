# frozen_string_literal: true

module Arena
  VERSION = "0.2.0"
end
