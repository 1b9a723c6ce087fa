// The schema's help lines as lupdate sees them (context "ConfigSchema"), in the table's order.
#pragma once

#include <vector>

namespace ampscope::ui {

const std::vector<const char*>& configSchemaHelpSources();

}  // namespace ampscope::ui
